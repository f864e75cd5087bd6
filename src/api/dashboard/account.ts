import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { normalizeEmail } from '../../accounts/dashboard-identity';
import type { MerchantAccounts } from '../../accounts/merchant-accounts';
import { SESSION_COOKIE, cookieOptions, issueCsrfCookie } from './cookies';
import { can, rolesFor } from '../../domain/dashboard-roles';
import { newPasswordInput, signInInput, signUpInput } from '../../domain/dashboard-inputs';
import { actorOf, hide, type SignedIn } from './guard';
import { meView } from './views/account';
import { ok } from './views/ok';

// The dashboard's account routes: sign-up, e-mail verification, sign-in and out, who is signed in,
// a forgotten password reset by mail, and the signed-in person's password change.

export interface AccountRoutesOptions {
  /** A sign-in under the per-account and per-address limits (plugins/rate-limit.ts), bound to the database by the plugin. */
  signInLimited: <T>(
    subjects: { email: string; ip: string },
    attempt: (tx: Parameters<MerchantAccounts['signIn']>[0]) => Promise<T>,
  ) => Promise<T>;
  /** A "forgot password" request under its own limits (every request counts), bound to the database by the plugin. */
  resetLimited: <T>(
    subjects: { email: string; ip: string },
    attempt: (tx: Parameters<MerchantAccounts['forgotPassword']>[0]) => Promise<T>,
  ) => Promise<T>;
  /** Counts a sign-up request under its limits (plugins/rate-limit.ts), or refuses it with 429. */
  signUpLimited: (subjects: { email: string; ip: string }) => Promise<void>;
  accounts: MerchantAccounts;
  signedIn: SignedIn;
  secureCookies: boolean;
}

const accountRoutes: FastifyPluginAsyncZod<AccountRoutesOptions> = async (
  app,
  { signInLimited, resetLimited, signUpLimited, accounts, signedIn, secureCookies },
) => {
  const clearSession = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, cookieOptions(secureCookies, 'session'));

  app.post(
    '/sign-up',
    {
      schema: {
        hide,
        body: signUpInput,
        response: { 201: z.object({ ok }) },
      },
    },
    async (request, reply) => {
      // Before anything is hashed, stored or mailed.
      await signUpLimited({ email: normalizeEmail(request.body.email), ip: request.ip });
      await accounts.signUp(request.body);
      return reply.status(201).send({ ok: true as const });
    },
  );

  app.post(
    '/verify-email',
    { schema: { hide, body: z.strictObject({ token: z.string().min(1).max(100) }), response: { 200: z.object({ ok }) } } },
    async (request) => {
      await accounts.verifyEmail(request.body.token);
      return { ok: true as const };
    },
  );

  app.post(
    '/sign-in',
    {
      schema: {
        hide,
        body: signInInput,
        response: { 200: z.object({ ok }) },
      },
    },
    async (request, reply) => {
      const { email, password, code } = request.body;
      const session = await signInLimited({ email: email.toLowerCase(), ip: request.ip }, (tx) =>
        accounts.signIn(tx, { email, password, code, ip: request.ip, previousToken: request.cookies[SESSION_COOKIE] ?? null }),
      );
      void reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(secureCookies, 'session'), expires: session.expiresAt });
      // A new CSRF token with the new session: one read before sign-in is of no use after it.
      issueCsrfCookie(reply, secureCookies);
      return { ok: true as const };
    },
  );

  const newPassword = newPasswordInput;

  app.post(
    '/forgot-password',
    { schema: { hide, body: z.strictObject({ email: z.email().max(254) }), response: { 202: z.object({ ok }) } } },
    async (request, reply) => {
      const email = request.body.email.toLowerCase();
      const { send } = await resetLimited({ email, ip: request.ip }, (tx) => accounts.forgotPassword(tx, email));
      // Not waited for: the answer is the same, as fast, whether the address has an account or not.
      if (send) void send().catch((err: unknown) => request.log.warn({ err }, 'password reset mail not sent'));
      return reply.status(202).send({ ok: true as const });
    },
  );

  // The link in the mail opens the dashboard's page (a GET that spends nothing, so a mail scanner
  // following links cannot use it up); the person's new password is POSTed here with the token.
  app.post(
    '/reset-password',
    {
      schema: {
        hide,
        body: z.strictObject({ token: z.string().min(1).max(100), password: newPassword }),
        response: { 200: z.object({ ok }) },
      },
    },
    async (request) => {
      await accounts.resetPassword({ ...request.body, ip: request.ip });
      return { ok: true as const };
    },
  );

  app.post(
    '/password',
    {
      schema: {
        hide,
        body: z.strictObject({ currentPassword: z.string().min(1).max(256).optional(), newPassword }),
        response: { 200: z.object({ ok, sessionsEnded: z.number().int() }) },
      },
    },
    async (request) => {
      const s = await signedIn(request, rolesFor('account.security'));
      const person = { ...actorOf(request, s), token: request.cookies[SESSION_COOKIE]!, steppedUpRecently: s.steppedUpRecently };
      // Under the sign-in limits: a stolen session cannot guess the current password through it.
      const { sessionsEnded } = await signInLimited({ email: s.email, ip: request.ip }, (tx) =>
        accounts.changePassword(tx, person, request.body),
      );
      return { ok: true as const, sessionsEnded };
    },
  );

  app.post(
    '/step-up',
    {
      schema: {
        hide,
        body: z.strictObject({ password: z.string().min(1).max(256), code: z.string().max(20).optional() }),
        response: { 200: z.object({ ok }) },
      },
    },
    async (request) => {
      const s = await signedIn(request);
      await signInLimited({ email: s.email, ip: request.ip }, (tx) =>
        accounts.stepUp(tx, { token: request.cookies[SESSION_COOKIE]!, ...request.body, ip: request.ip }),
      );
      return { ok: true as const };
    },
  );

  app.post('/sign-out', { schema: { hide, response: { 200: z.object({ ok }) } } }, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await accounts.signOut(token, request.ip);
    clearSession(reply);
    return { ok: true as const };
  });

  app.post(
    '/sign-out-everywhere',
    { schema: { hide, response: { 200: z.object({ ok, sessionsEnded: z.number().int() }) } } },
    async (request, reply) => {
      const s = await signedIn(request, rolesFor('account.security'));
      const sessionsEnded = await accounts.signOutEverywhere(actorOf(request, s));
      clearSession(reply);
      return { ok: true as const, sessionsEnded };
    },
  );

  app.get('/me', { schema: { hide, response: { 200: meView } } }, async (request) => {
    const s = await signedIn(request);
    return {
      ok: true as const,
      user: { id: s.userId, email: s.email, role: s.role },
      merchant: { id: s.merchantId, name: s.merchantName, status: s.merchantStatus },
      // Only to those who may see it: a viewer is never offered the key.
      liveKeyWaiting: s.liveKeyWaiting && s.merchantStatus === 'approved' && can(s.role, 'liveKey.reveal'),
      steppedUp: s.steppedUpRecently,
      twoFactor: s.twoFactorEnabled,
    };
  });
};

export default accountRoutes;
