import { APP_ORIGIN, BFF_CLIENT_SECRET, PROVIDER_ISSUER } from './playwright.bff.config';
import { expect, test } from './bff/bff-test';
import { openSignedInTabs } from './bff/open-signed-in-tabs';

// Signing out of the showcase's bff build in one of three tabs, its BFF on two instances sharing the
// sessions in PostgreSQL: the session ends in every tab, at the BFF and at the provider.

test('signing out in one of three tabs ends the session in all three, deletes it, and revokes the grant at the provider', async ({
  newContext,
  stack,
}) => {
  const context = await newContext();
  const tabs = await openSignedInTabs(context, 'ada', 3, 2);
  const [signingOut, ...others] = tabs;
  const sessionsBefore = await sessionCount(stack.query);
  const before = await stack.provider.stats();

  await signingOut!.getByTestId('sign-out').click();
  // RP-initiated logout: the provider's confirmation, then back to the app's front page.
  await expect(signingOut!).toHaveURL(new RegExp(`^${PROVIDER_ISSUER}/session/end\\?`));
  await signingOut!.getByRole('button', { name: /yes, sign me out/i }).click();
  await expect(signingOut!).toHaveURL(`${APP_ORIGIN}/`);
  await expect(signingOut!.getByTestId('sign-in')).toBeVisible();
  await expect(signingOut!.getByTestId('session-status')).toHaveText('Signed out.');
  // Its own sign-out is no end to report.
  await expect(signingOut!.getByTestId('session-ended')).toHaveCount(0);

  // The other tabs heard it (BroadcastChannel), each once, without a call of its own.
  for (const tab of others) {
    await expect(tab.getByTestId('session-ended')).toHaveText('The session ended: You signed out in another tab.');
    await expect(tab.getByTestId('session-ended')).toHaveAttribute('data-count', '1');
    await expect(tab.getByTestId('session-status')).toHaveText('Signed out.');
    await expect(tab.getByTestId('sign-in')).toBeVisible();
  }
  // Their cookie is gone with the first tab's (one browser), so the BFF knows them no more.
  const answers = await Promise.all(
    others.map((tab) => tab.evaluate(async () => (await fetch('/api/me', { headers: { 'x-csrf': '1' } })).status)),
  );
  expect(answers).toEqual([401, 401]);
  expect(await context.cookies(APP_ORIGIN)).toEqual([]);

  // The BFF deleted the session and revoked its refresh token: the grant is over at the provider.
  expect(await sessionCount(stack.query)).toBe(sessionsBefore - 1);
  const after = await stack.provider.stats();
  expect(after.revoked - before.revoked).toBe(1);
  const { refreshTokens } = await stack.provider.issuedTokens();
  const refused = await fetch(`${PROVIDER_ISSUER}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`bff:${BFF_CLIENT_SECRET}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshTokens.at(-1)!.value }),
  });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
  expect((await stack.provider.stats()).reuseDetected).toBe(before.reuseDetected);
  // A new visit meets the provider's sign-in form again: its session ended too.
  await signingOut!.getByTestId('sign-in').click();
  await expect(signingOut!.locator('input[name="login"]')).toBeVisible();
});

async function sessionCount(query: (text: string) => Promise<Record<string, unknown>[]>): Promise<number> {
  return Number((await query('SELECT count(*) AS count FROM bff_sessions'))[0]!['count']);
}
