export * from './merchants';
export * from './api-keys';
export * from './merchant-wallets';
export * from './platform-settings';
export * from './auth-failures';
export * from './idempotency-keys';
