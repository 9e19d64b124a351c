/* global document, fetch */
import { writeFileSync } from 'node:fs';

import { expect, test } from '@playwright/test';

// The app's `bff` build behind its own server.ts with createBff (ngx-token-refresh/bff), and
// oidc-provider with the confidential client `bff` and 4-second access tokens (run.mjs starts both;
// PROVIDER_URL is the provider's issuer, whose /__harness/ hooks count its grants). A user signs in on
// the provider's own pages; the browser then holds a session cookie and no token, and the BFF calls
// the API (the provider's userinfo, `GET /api/me` on the app) and refreshes for it.

const providerUrl = process.env['PROVIDER_URL'];
const appUrl = process.env['APP_URL'];
const accessTokenSeconds = Number(process.env['ACCESS_TOKEN_SECONDS']);

/** The app's pages and answers (documents, fetch) as `{ call, body }`, for run.mjs to search for tokens. */
const answers = [];

test('signed in through the BFF: rendered signed in, API calls through the BFF, one refresh, x-csrf required, signed out', async ({
  page,
  context,
  request,
}) => {
  const harness = async (method, hook) => {
    const response = await request.fetch(`${providerUrl}/__harness/${hook}`, { method });
    expect(response.ok()).toBe(true);
    return response.json();
  };
  const reading = [];
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (!response.url().startsWith(`${appUrl}/`) || !['document', 'fetch', 'xhr'].includes(type)) return;
    const call = `${response.request().method()} ${new URL(response.url()).pathname}`;
    // A redirect has no body to read.
    reading.push(
      response.text().then(
        (body) => answers.push({ call, body }),
        () => undefined,
      ),
    );
  });
  const wire = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === appUrl && /^\/(bff|api)\//.test(url.pathname)) {
      wire.push({ call: `${request.method()} ${url.pathname}`, headers: request.headers() });
    }
  });
  const calls = (call) => wire.filter((entry) => entry.call === call);
  const answered = page.locator('#bff-api');

  // Signed out: rendered so, and the API refuses the call (no session).
  await page.goto('/bff-account');
  await expect(page.locator('#bff-user')).toHaveText('signedOut');
  await expect(answered).toHaveText('failed 401 NoSession');

  // Sign in on the provider's own pages (devInteractions: any login and password, then consent).
  await page.locator('#bff-sign-in').click();
  await page.locator('input[name="login"]').fill('ada');
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${appUrl}/bff-account`);
  await expect(page.locator('#bff-user')).toHaveText('ada');
  const cookies = await context.cookies(appUrl);
  expect(cookies.map(({ name }) => name)).toEqual(['__Host-bff-session']);
  expect(cookies[0]).toMatchObject({ path: '/', httpOnly: true, secure: true, sameSite: 'Strict' });
  expect(await page.evaluate(() => document.cookie)).toBe('');

  // A page load signed in: rendered with the user and the API's answer, hydrated without asking who
  // is signed in (the render handed the user over); its own start-up call goes through the BFF.
  wire.length = 0;
  const load = await page.goto('/bff-account');
  const html = await load.text();
  expect(html).toContain('<p id="bff-user">ada</p>');
  expect(html).toContain('<p id="bff-api">sub ada</p>');
  expect(load.headers()['cache-control']).toBe('private, no-store');
  await expect(page.locator('app-root')).toHaveAttribute('ng-server-context', 'ssr');
  // Hydrated once the browser's own start-up call has gone out and been answered.
  await expect.poll(() => calls('GET /api/me').length).toBe(1);
  await expect(answered).toHaveText('sub ada');
  await page.waitForLoadState('networkidle');
  expect(calls('GET /bff/session')).toEqual([]);

  // A click: the API through the BFF, with x-csrf and the cookie, never a token from the browser.
  await page.locator('#bff-call').click();
  await expect(answered).toHaveText('sub ada,sub ada');
  const [click] = calls('GET /api/me').slice(-1);
  expect(click.headers['x-csrf']).toBe('1');
  expect(click.headers['authorization']).toBeUndefined();

  // The session's access token past its lifetime (the BFF's clock runs in its own process, so the
  // test waits): five calls at once, one refresh grant, made ahead, so the API never sees the old token.
  await page.waitForTimeout(accessTokenSeconds * 1000);
  await harness('POST', 'reset-stats');
  await page.locator('#bff-burst').click();
  await expect(answered).toHaveText(Array(7).fill('sub ada').join(','));
  expect(await harness('GET', 'stats')).toMatchObject({
    refreshGrants: 1,
    refreshFailures: {},
    reuseDetected: 0,
    userinfo: { ok: 5, unauthorized: 0 },
  });

  // Every access token expired at the provider before its time: five calls at once, which the API
  // refuses (401) until the one refresh grant, then repeats with the new token.
  await harness('POST', 'expire-access-tokens');
  await harness('POST', 'reset-stats');
  await page.locator('#bff-burst').click();
  await expect(answered).toHaveText(Array(12).fill('sub ada').join(','));
  const stats = await harness('GET', 'stats');
  expect(stats).toMatchObject({ refreshGrants: 1, refreshFailures: {}, reuseDetected: 0, revoked: 0 });
  expect(stats.userinfo.unauthorized).toBeGreaterThanOrEqual(1);
  expect(stats.userinfo.ok).toBe(5);

  // The session cookie alone is not enough: without x-csrf, the BFF refuses the call.
  const direct = (headers) =>
    page.evaluate(async (sent) => {
      const response = await fetch('/api/me', { headers: sent });
      return { status: response.status, body: await response.json() };
    }, headers);
  const refused = await direct({});
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('CsrfRefused');
  expect(await direct({ 'x-csrf': '1' })).toEqual({ status: 200, body: { sub: 'ada' } });

  // Sign out: the BFF ends the session (revoking its grant), then the provider's end-session page.
  await harness('POST', 'reset-stats');
  await page.locator('#bff-sign-out').click();
  await page.getByRole('button', { name: 'Yes, sign me out' }).click();
  await page.waitForURL(`${appUrl}/`);
  expect(await context.cookies(appUrl)).toEqual([]);
  expect((await harness('GET', 'stats')).revoked).toBe(1);
  await page.goto('/bff-account');
  await expect(page.locator('#bff-user')).toHaveText('signedOut');
  await expect(answered).toHaveText('failed 401 NoSession');

  await Promise.all(reading);
  writeFileSync(process.env['BFF_ANSWERS_FILE'], JSON.stringify(answers));
});
