import { expect } from 'vitest';

/**
 * A browser tab pressing Pay on a link's page (its country chosen): a fresh browser, so no cookie of
 * an earlier tab. Answers the checkout session it was sent to.
 */
export async function openLinkTab(baseUrl: string, linkId: string): Promise<string> {
  const res = await fetch(`${baseUrl}/link/${linkId}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'country=US',
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return /\/pay\/(SV_[0-9A-Za-z]{24})$/.exec(res.headers.get('location') ?? '')![1]!;
}
