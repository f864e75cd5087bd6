import { sha256Hex } from '../domain/credentials';
import type { DashboardActor } from './dashboard-audit';

// How the dashboard's accounts name a person and keep their tokens: an email address as it is
// compared, a session or email token as it is stored (SHA-256 of a 256-bit random value), and the
// person as the audit log records them.

/** The person of an account, at the address they acted from, as the audit log records them. */
export const actor = (
  person: { userId: string; email: string; role: DashboardActor['role']; merchantId: string },
  ip: string,
): DashboardActor => ({ ...person, ip });

export const tokenHash = sha256Hex;
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
