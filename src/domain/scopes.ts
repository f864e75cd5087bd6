// Scopes A live key issued on approval carries all four.
export const SCOPES = ['checkout_sessions:create', 'payment_links:create', 'transactions:read', 'plugin:connect'] as const;

export type Scope = (typeof SCOPES)[number];
