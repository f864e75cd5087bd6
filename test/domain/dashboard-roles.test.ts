import { describe, expect, it } from 'vitest';
import { can, DASHBOARD_PERMISSIONS, DASHBOARD_ROLES, mayChangeMember, type DashboardRole } from '../../src/domain/dashboard-roles';

describe('dashboard roles table', () => {
  it('gives each role no more than the role above it', () => {
    // owner ⊇ admin ⊇ developer ⊇ viewer, action by action.
    for (const action of Object.keys(DASHBOARD_PERMISSIONS) as (keyof typeof DASHBOARD_PERMISSIONS)[]) {
      for (let i = 1; i < DASHBOARD_ROLES.length; i++) {
        if (can(DASHBOARD_ROLES[i]!, action))
          expect(can(DASHBOARD_ROLES[i - 1]!, action), `${action}: ${DASHBOARD_ROLES[i - 1]}`).toBe(true);
      }
    }
  });

  it('keeps keys and secrets from viewers, money and the team from developers, owners from admins', () => {
    expect(['developers.read', 'developers.manage', 'liveKey.reveal'].filter((a) => can('viewer', a as never))).toEqual([]);
    expect(['wallets.manage', 'refunds.create', 'team.read', 'team.manage'].filter((a) => can('developer', a as never))).toEqual([]);
    expect(can('admin', 'team.owners') || can('admin', 'audit.read')).toBe(false);
    expect(can('owner', 'audit.read')).toBe(true);
  });

  it('lets owners touch owners, admins everyone else, and no one below', () => {
    const cases: [DashboardRole, DashboardRole | null, DashboardRole | null, boolean][] = [
      ['owner', 'owner', 'admin', true],
      ['owner', null, 'owner', true],
      ['admin', 'viewer', 'developer', true],
      ['admin', null, 'admin', true],
      ['admin', 'developer', null, true],
      ['admin', 'owner', 'admin', false],
      ['admin', 'admin', 'owner', false],
      ['admin', null, 'owner', false],
      ['admin', 'owner', null, false],
      ['developer', 'viewer', 'developer', false],
      ['viewer', 'viewer', null, false],
    ];
    for (const [actor, current, target, allowed] of cases) {
      expect(mayChangeMember(actor, current, target), `${actor}: ${current} → ${target}`).toBe(allowed);
    }
  });
});
