// The merchants' verifier is one self-contained file in packages/verify-webhook (copied as is into
// merchants' servers, and published as that package); the service re-exports it rather than keeping
// a second copy, so the helper docs/webhooks.md shows is the one the service's own tests exercise.
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook } from '../../packages/verify-webhook/verify';
export type { VerifyFailure, VerifyOptions, VerifyResult } from '../../packages/verify-webhook/verify';
