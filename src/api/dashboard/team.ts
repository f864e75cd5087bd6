import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DASHBOARD_ROLES, rolesFor } from '../../domain/dashboard-roles';
import { newPasswordInput, teamInviteInput } from '../../domain/dashboard-inputs';
import type { DashboardTeam, InvitationRow, MemberRow } from '../../accounts/dashboard-team';
import { actorOf, hide, type SignedIn } from './guard';
import { ok } from './views/ok';
import { invitationView, memberView } from './views/team';

// The team page: the merchant's members and their roles. Owners and admins read and change it (a
// role after a step-up); only owners touch owners (domain/dashboard-roles.ts), and the last owner stays.

const viewMember = (m: MemberRow): z.infer<typeof memberView> => ({
  id: m.id,
  email: m.email,
  role: m.role,
  emailVerified: m.emailVerifiedAt !== null,
  createdAt: m.createdAt.toISOString(),
});
const memberParams = z.object({ userId: z.string().max(100) });

const viewInvitation = (i: InvitationRow): z.infer<typeof invitationView> => ({
  id: i.id,
  email: i.email,
  role: i.role,
  invitedBy: i.invitedByEmail,
  createdAt: i.createdAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
});
const invitationToken = z.string().min(1).max(100);

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
      // A role decides who may move money and read secrets: giving one asks who you are again, as
      // those actions do.
      const s = await signedIn(request, rolesFor('team.manage'), { stepUp: true });
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

  app.get(
    '/team/invitations',
    { schema: { hide, response: { 200: z.object({ ok, invitations: z.array(invitationView) }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('team.read'));
      return { ok: true as const, invitations: (await team.invitations(s.merchantId)).map(viewInvitation) };
    },
  );

  app.post(
    '/team/invitations',
    {
      schema: {
        hide,
        body: teamInviteInput,
        response: { 201: z.object({ ok, invitation: invitationView }) },
      },
    },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('team.manage'));
      const invitation = await team.invite(actorOf(request, s), request.body, s.merchantName);
      return reply.status(201).send({ ok: true as const, invitation: viewInvitation(invitation) });
    },
  );

  app.delete(
    '/team/invitations/:invitationId',
    {
      schema: {
        hide,
        params: z.object({ invitationId: z.string().max(100) }),
        response: { 200: z.object({ ok, invitation: invitationView }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('team.manage'));
      return {
        ok: true as const,
        invitation: viewInvitation(await team.revokeInvitation(actorOf(request, s), request.params.invitationId)),
      };
    },
  );

  // The invited person, not signed in: the link's token is the proof. POST keeps it out of URLs
  // that logs and proxies record.
  app.post(
    '/invitations/preview',
    {
      schema: {
        hide,
        body: z.strictObject({ token: invitationToken }),
        response: { 200: z.object({ ok, merchantName: z.string(), email: z.string(), role: z.enum(DASHBOARD_ROLES) }) },
      },
    },
    async (request) => ({ ok: true as const, ...(await team.previewInvitation(request.body.token)) }),
  );

  app.post(
    '/invitations/accept',
    {
      schema: {
        hide,
        body: z.strictObject({ token: invitationToken, password: newPasswordInput }),
        response: { 201: z.object({ ok, email: z.string() }) },
      },
    },
    async (request, reply) =>
      reply.status(201).send({ ok: true as const, ...(await team.acceptInvitation({ ...request.body, ip: request.ip })) }),
  );
};

export default teamRoutes;
