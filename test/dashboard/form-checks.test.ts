import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { checkForm, fieldError, FormRefused } from '../../dashboard/src/field-errors';
import { refundInput, signInInput, signUpInput, teamInviteInput } from '../../src/domain/dashboard-inputs';
import { DashboardClient, PASSWORD, signedUpOwner } from '../support/dashboard';
import { useTestApp } from '../support/harness';
import { useMailSink } from '../support/mail';

// The dashboard checks a form with the schema its route checks the body with: a value refused in the
// browser is refused by the server in the same words, field by field, so what the page shows beside a
// field before sending is what it would show after.
describe('dashboard forms check as the server does', () => {
  const mailbox = useMailSink();
  const ctx = useTestApp(mailbox.env);

  /** What the browser's check says of `values`, in the server's error shape. */
  function refusedInBrowser(schema: z.ZodType, values: unknown) {
    try {
      checkForm(schema, values);
    } catch (e) {
      expect(e).toBeInstanceOf(FormRefused);
      const refused = e as FormRefused;
      return { status: refused.status, error: refused.code, message: refused.message, details: refused.details };
    }
    throw new Error(`the browser's check accepted ${JSON.stringify(values)}`);
  }

  async function refusedByServer(client: DashboardClient, path: string, values: unknown) {
    const res = await client.call('POST', path, values);
    const body = res.json();
    return { status: res.statusCode, error: body.error, message: body.message, details: body.details };
  }

  async function expectSame(client: DashboardClient, path: string, schema: z.ZodType, values: Record<string, unknown>, fields: string[]) {
    const browser = refusedInBrowser(schema, values);
    const server = await refusedByServer(client, path, values);
    expect(browser).toEqual(server);
    expect(server.status).toBe(422);
    // The words shown beside each field are the same, and there are some.
    for (const field of fields) {
      expect(fieldError(browser, field)).toBeTruthy();
      expect(fieldError(browser, field)).toBe(fieldError(server, field));
    }
  }

  it('sign-up and sign-in: a short password, a malformed email, an empty name', async () => {
    const anonymous = new DashboardClient(ctx.app, '198.51.100.40');
    await expectSame(anonymous, '/sign-up', signUpInput, { businessName: ' ', email: 'not-an-email', password: 'short' }, [
      'businessName',
      'email',
      'password',
    ]);
    expect(fieldError(refusedInBrowser(signUpInput, { businessName: 'Shop', email: 'a@example.com', password: 'short' }), 'password')).toBe(
      'must be at least 12 characters',
    );
    await expectSame(anonymous, '/sign-in', signInInput, { email: '', password: '' }, ['email', 'password']);
    await expectSame(anonymous, '/sign-in', signInInput, { email: 'a@example.com', password: PASSWORD, code: '1'.repeat(21) }, ['code']);
  });

  it('a team invitation and a refund, as a signed-in owner', async () => {
    const { client: owner } = await signedUpOwner(ctx.app, mailbox, 'form-checks@example.com');
    await expectSame(owner, '/team/invitations', teamInviteInput, { email: 'nobody', role: 'superuser' }, ['email', 'role']);
    // Checked before anything is looked up: the payment need not exist for the body to be refused.
    await expectSame(owner, '/payments/pay_none/refunds', refundInput, { amount: '', address: ' ', requestKey: 'short' }, [
      'amount',
      'address',
      'requestKey',
    ]);
  });

  it('accepts what the server accepts, as it was typed', () => {
    const values = { businessName: ' Corner Shop ', email: 'owner@example.com', password: PASSWORD };
    expect(checkForm(signUpInput, values)).toBe(values);
  });
});
