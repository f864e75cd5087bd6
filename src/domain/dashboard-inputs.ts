import { z } from 'zod';
import { PAYOUT_SCHEDULES } from './balances';
import { DASHBOARD_ROLES } from './dashboard-roles';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types';

// The bodies of the dashboard's forms, as the server checks them. They live here, built from zod and
// pure lists only, so the dashboard's bundle checks a form with the very schema its route answers
// with (same fields, same words) before sending it, and its request types are these schemas' inputs.

const PASSWORD_TOO_SHORT = 'must be at least 12 characters';

/** A password being set: sign-up, a reset, an accepted invitation, a change. */
export const newPasswordInput = z.string().min(12, PASSWORD_TOO_SHORT).max(256);

export const signUpInput = z.strictObject({
  businessName: z.string().trim().min(1).max(200),
  email: z.email().max(254),
  password: newPasswordInput,
});

export const signInInput = z.strictObject({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(256),
  /** The authenticator's code or a recovery code, for a person with a second factor. */
  code: z.string().max(20).optional(),
});

/** A webhook endpoint's event types: absent, every event. */
export const eventTypesInput = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .optional();

export const webhookEndpointInput = z.strictObject({ url: z.string().trim().min(1).max(2048), eventTypes: eventTypesInput });

// No address: the one the customer left on the checkout page. requestKey: the form's key for this
// refund (a double click sends it twice: one refund).
export const refundInput = z.strictObject({
  amount: z.string().trim().min(1).max(40),
  address: z.string().trim().min(1).max(100).optional(),
  requestKey: z.string().trim().min(8).max(100).optional(),
});

export const payoutSettingsInput = z.strictObject({ schedule: z.enum(PAYOUT_SCHEDULES), minimum: z.string().max(40) });

export const teamInviteInput = z.strictObject({ email: z.email().max(254), role: z.enum(DASHBOARD_ROLES) });
