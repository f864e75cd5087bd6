import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DASHBOARD_ROLES, rolesFor } from '../../domain/dashboard-roles';
import type { DashboardTeam, MemberRow } from '../../payments/dashboard-team';
import { actorOf, hide, ok, type SignedIn } from './guard';

// The team page: the merchant's members and their roles. Owners and admins read and change it;
// only owners touch owners (domain/dashboard-roles.ts), and the last owner stays.

const memberView = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(DASHBOARD_ROLES),
  emailVerified: z.boolean(),
  createdAt: z.string(),
});
const viewMember = (m: MemberRow): z.infer<typeof memberView> => ({
  id: m.id,
  email: m.email,
  role: m.role,
  emailVerified: m.emailVerifiedAt !== null,
  createdAt: m.createdAt.toISOString(),
});
const memberParams = z.object({ userId: z.string().max(100) });

export interface TeamRoutesOptions {
  team: DashboardTeam;
  signedIn: SignedIn;
}

const teamRoutes: FastifyPluginAsyncZod<TeamRoutesOptions> = async (app, { team, signedIn }) => {
  app.get('/team', { schema: { hide, response: { 200: z.object({ ok, members: z.array(memberView) }) } } }, async (request) => {
    const s = await signedIn(request, rolesFor('team.read'));
    return { ok: true as const, members: (await team.list(s.merchantId)).map(viewMember) };
  });

  app.post(
    '/team/:userId/role',
    {
      schema: {
        hide,
        params: memberParams,
        body: z.strictObject({ role: z.enum(DASHBOARD_ROLES) }),
        response: { 200: z.object({ ok, member: memberView }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('team.manage'));
      return {
        ok: true as const,
        member: viewMember(await team.changeRole(actorOf(request, s), request.params.userId, request.body.role)),
      };
    },
  );

  app.delete(
    '/team/:userId',
    { schema: { hide, params: memberParams, response: { 200: z.object({ ok, member: memberView }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('team.manage'));
      return { ok: true as const, member: viewMember(await team.remove(actorOf(request, s), request.params.userId)) };
    },
  );
};

export default teamRoutes;
