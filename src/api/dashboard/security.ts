import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rolesFor } from '../../domain/dashboard-roles';
import type { TwoFactor } from '../../accounts/two-factor';
import type { AccountRoutesOptions } from './account';
import { actorOf, hide, type SignedIn } from './guard';
import { ok } from './views/ok';

// The signed-in person's own security: their second factor (TOTP). Every role has one of its own.

export interface SecurityRoutesOptions {
  twoFactor: TwoFactor;
  signInLimited: AccountRoutesOptions['signInLimited'];
  signedIn: SignedIn;
}

const code = z.string().trim().min(1).max(20);

const securityRoutes: FastifyPluginAsyncZod<SecurityRoutesOptions> = async (app, { twoFactor, signInLimited, signedIn }) => {
  app.post(
    '/two-factor/enroll',
    { schema: { hide, response: { 200: z.object({ ok, secret: z.string(), uri: z.string(), qrSvg: z.string() }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('account.security'));
      return { ok: true as const, ...(await twoFactor.enroll(actorOf(request, s))) };
    },
  );

  app.post(
    '/two-factor/confirm',
    { schema: { hide, body: z.strictObject({ code }), response: { 200: z.object({ ok, recoveryCodes: z.array(z.string()) }) } } },
    async (request) => {
      const s = await signedIn(request, rolesFor('account.security'));
      return { ok: true as const, ...(await twoFactor.confirm(actorOf(request, s), request.body.code)) };
    },
  );

  app.post(
    '/two-factor/disable',
    {
      schema: {
        hide,
        body: z.strictObject({ password: z.string().min(1).max(256), code }),
        response: { 200: z.object({ ok }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('account.security'));
      const actor = actorOf(request, s);
      // Under the sign-in limits: a stolen session cannot guess the password or codes through it.
      await signInLimited({ email: s.email, ip: request.ip }, (tx) => twoFactor.disable(tx, actor, request.body));
      return { ok: true as const };
    },
  );
};

export default securityRoutes;
