// Who may do what in the merchant dashboard (least privilege). The one table every
// dashboard route asks through `rolesFor(action)`; the roles table of docs/dashboard.md is this table in words.
//
// - viewer: sees the account and (part 2) its payments, never keys, secrets or what webhooks send;
// - developer: keys, webhook endpoints, the Security Code, plugin sites, the request log; not
//   wallets, refunds or the team (payment links they make through the v1 API already, so here too);
// - admin: everything but what decides who controls the account: owners and the audit log;
// - owner: everything, including making or removing owners and reading the audit log.

export const DASHBOARD_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

const ALL: readonly DashboardRole[] = DASHBOARD_ROLES;
const BUILDERS: readonly DashboardRole[] = ['owner', 'admin', 'developer'];
const MANAGERS: readonly DashboardRole[] = ['owner', 'admin'];
const OWNERS: readonly DashboardRole[] = ['owner'];

export const DASHBOARD_PERMISSIONS = {
  /** Who is signed in, the merchant's name and status. */
  'account.read': ALL,
  /** The person's own security: their password, second factor, sessions. */
  'account.security': ALL,
  /** Payments, their list and CSV (part 2): money the merchant received, no secrets. */
  'payments.read': ALL,
  /** Payment links: make and deactivate (developers make them through the v1 API already). */
  'links.manage': BUILDERS,
  /** Refunds (part 2): money leaves. */
  'refunds.create': MANAGERS,
  /** Settlement wallets (part 2): where money goes. */
  'wallets.manage': MANAGERS,
  /** API keys, the Security Code, webhook endpoints and deliveries, plugin sites, the request log. */
  'developers.read': BUILDERS,
  'developers.manage': BUILDERS,
  /** The live key held since approval: shown once. */
  'liveKey.reveal': BUILDERS,
  /** The member list and pending invitations. */
  'team.read': MANAGERS,
  /** Invite, change the role of or remove an admin, developer or viewer. */
  'team.manage': MANAGERS,
  /** Invite, make, demote or remove an owner. */
  'team.owners': OWNERS,
  /** Who did what: it names every person and action, so only those who control the account read it. */
  'audit.read': OWNERS,
} as const satisfies Record<string, readonly DashboardRole[]>;

export type DashboardAction = keyof typeof DASHBOARD_PERMISSIONS;

export function rolesFor(action: DashboardAction): readonly DashboardRole[] {
  return DASHBOARD_PERMISSIONS[action];
}

export function can(role: DashboardRole, action: DashboardAction): boolean {
  return DASHBOARD_PERMISSIONS[action].includes(role);
}

/**
 * Whether `actor` may give `target` role to a member who has `current` role (null: a new member by
 * invitation), or remove them (`target` null). Owners are touched by owners only. The last owner's
 * protection needs the count of owners, which the service layer checks.
 */
export function mayChangeMember(actor: DashboardRole, current: DashboardRole | null, target: DashboardRole | null): boolean {
  if (!can(actor, 'team.manage')) return false;
  if (current === 'owner' || target === 'owner') return can(actor, 'team.owners');
  return true;
}
