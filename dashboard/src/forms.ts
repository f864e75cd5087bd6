// The forms' bodies are the server's own schemas (zod and pure lists only, so the bundle takes them):
// each form checks its values with the same schema before sending, and shows the same words beside
// the same fields. A module of its own, so that zod comes with the pages whose forms use it; the
// sign-in and sign-up pages fetch it when their form is first sent (useFormCheck), never before their
// first paint.
export {
  payoutSettingsInput,
  refundInput,
  signInInput,
  signUpInput,
  teamInviteInput,
  webhookEndpointInput,
} from '../../src/domain/dashboard-inputs';
export { checkForm } from './field-errors';
