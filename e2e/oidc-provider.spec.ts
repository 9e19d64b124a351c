import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';

import { type BrowserContext, type Page, type Request, expect, test } from '@playwright/test';

import { DPOP_PROVIDER_PORT, PROACTIVE_PROVIDER_PORT, REACTIVE_PROVIDER_PORT } from './playwright.oidc.config';

// projects/oidc-demo against oidc-provider (see playwright.oidc.config.ts): the sign-in through the
// provider's own pages (the authorization code flow with PKCE, by oauth4webapi), then the refresh by
// provideOAuthRefresh with the refresh token in localStorage, withCrossTabSync() and
// withProactiveRefresh(). The provider rotates refresh tokens strictly: a rotated one presented again
// revokes the sign-in at once. The tabs of a test are the pages of one browser context, so they share
// localStorage, the Web Locks and the BroadcastChannel of the app's origin, as the tabs of a browser do.

/** Access tokens of 4 s, the app without withProactiveRefresh(): refreshed on their 401. */
const REACTIVE = { issuer: `http://localhost:${REACTIVE_PROVIDER_PORT}`, ttl: 4 };
/** Access tokens of 8 s: refreshed ahead of expiry (a quarter of their life before it). */
const PROACTIVE = { issuer: `http://localhost:${PROACTIVE_PROVIDER_PORT}`, ttl: 8 };
/**
 * DPoP-bound tokens only, a nonce in every proof, access tokens of 4 s: the demo with withDPoP() and
 * without withProactiveRefresh() (refreshed on their 401, so each burst counts its own grant).
 */
const DPOP = { issuer: `http://localhost:${DPOP_PROVIDER_PORT}`, ttl: 4 };

test('signs in on the provider’s pages with the code flow and PKCE, and the access token opens userinfo', async ({
  context,
}) => {
  const { issuer } = REACTIVE;
  await useProvider(context, issuer, { refreshAhead: false });
  const before = await stats(issuer);
  const page = await context.newPage();
  const authorization = page.waitForRequest((request) => request.url().startsWith(`${issuer}/auth?`));
  const exchange = page.waitForRequest((request) => grantType(request, issuer) === 'authorization_code');

  await signIn(page);

  const query = new URL((await authorization).url()).searchParams;
  expect(query.get('response_type')).toBe('code');
  expect(query.get('code_challenge_method')).toBe('S256');
  expect(query.get('state')).toMatch(/^[\w-]{20,}$/);
  // What the provider's default policy wants before it issues a refresh token (OpenID Connect Core §11).
  expect(query.get('scope')).toBe('openid offline_access');
  expect(query.get('prompt')).toBe('consent');
  // The verifier sent with the code is the one whose hash went to the provider with the request.
  const verifier = new URLSearchParams((await exchange).postData() ?? '').get('code_verifier') ?? '';
  expect(createHash('sha256').update(verifier).digest('base64url')).toBe(query.get('code_challenge'));

  await page.getByTestId('call').click();
  await expect(page.getByTestId('answered')).toHaveText('1');
  await expect(page.getByTestId('userinfo')).toContainText('"sub": "ada"');
  // The refresh token alone is kept (for the other tabs and reloads); the access token stays in memory.
  expect(await page.evaluate(() => Object.keys(localStorage))).toEqual(['ngx-token-refresh.oauth.spa.refreshToken']);
  const after = await stats(issuer);
  expect(after.codeGrants - before.codeGrants).toBe(1);
  expect(after.refreshGrants - before.refreshGrants).toBe(0);
  expect(after.userinfo.ok - before.userinfo.ok).toBe(1);
});

test('3 tabs calling every second over 3 expiries: one refresh grant per expiry, no reuse, every call answered', async ({
  context,
}) => {
  const { issuer, ttl } = REACTIVE;
  await useProvider(context, issuer, { refreshAhead: false });
  const tabs = await openSignedInTabs(context, 3);
  const grants = recordRefreshGrants(context, issuer);
  const before = await stats(issuer);
  const countersBefore = await Promise.all(tabs.map(counters));

  for (const tab of tabs) await tab.getByTestId('steady').check();
  await expect.poll(() => grants.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
  for (const tab of tabs) await tab.getByTestId('steady').uncheck();
  await expectAllAnswered(tabs);

  const after = await stats(issuer);
  expect(after.refreshGrants - before.refreshGrants, 'grants the provider made').toBe(grants.length);
  expectNoSessionEnded(before, after);
  // A token is refreshed once, on its first 401, and the next refresh waits for the next expiry: two
  // refreshes of one expiry would come a moment apart. (exp counts whole seconds: a token lives
  // between ttl - 1 and ttl seconds.)
  for (const [gap, index] of gaps(grants)) {
    expect(gap, `time between refresh grants ${index} and ${index + 1}`).toBeGreaterThan((ttl - 1.5) * 1000);
  }
  const countersAfter = await Promise.all(tabs.map(counters));
  const change = (name: keyof Counters) =>
    countersAfter.reduce((sum, counts, index) => sum + counts[name] - (countersBefore[index]?.[name] ?? 0), 0);
  // Each grant was made by one tab; the others took its token.
  expect(change('refreshes'), 'refreshes made by the tabs').toBe(grants.length);
  expect(change('received'), 'tokens taken from another tab').toBeGreaterThanOrEqual(grants.length);
  // Every 401 was repeated with the new token, and each repeat answered.
  const unauthorized = after.userinfo.unauthorized - before.userinfo.unauthorized;
  expect(unauthorized, 'userinfo 401s').toBeGreaterThanOrEqual(grants.length);
  expect(change('repeated'), 'calls repeated after a 401').toBe(unauthorized);
  for (const tab of tabs) await expect(tab.getByTestId('status')).toHaveText('Signed in');
  annotate(grants, unauthorized);
});

test('with tokens that live long enough, the tabs refresh ahead of expiry: no call meets a 401', async ({
  context,
}) => {
  const { issuer, ttl } = PROACTIVE;
  await useProvider(context, issuer);
  const tabs = await openSignedInTabs(context, 3);
  const grants = recordRefreshGrants(context, issuer);
  const before = await stats(issuer);
  const aheadBefore = await Promise.all(tabs.map(async (tab) => (await counters(tab)).ahead));

  for (const tab of tabs) await tab.getByTestId('steady').check();
  await expect.poll(() => grants.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  for (const tab of tabs) await tab.getByTestId('steady').uncheck();
  await expectAllAnswered(tabs);

  const after = await stats(issuer);
  expect(after.refreshGrants - before.refreshGrants, 'grants the provider made').toBe(grants.length);
  expectNoSessionEnded(before, after);
  expect(after.userinfo.unauthorized - before.userinfo.unauthorized, 'userinfo 401s').toBe(0);
  expect(after.userinfo.ok - before.userinfo.ok).toBeGreaterThan(0);
  for (const [gap, index] of gaps(grants)) {
    expect(gap, `time between refresh grants ${index} and ${index + 1}`).toBeLessThan(ttl * 1000);
    expect(gap, `time between refresh grants ${index} and ${index + 1}`).toBeGreaterThan((ttl / 2) * 1000);
  }
  const ahead = (await Promise.all(tabs.map(counters))).reduce(
    (sum, counts, index) => sum + counts.ahead - (aheadBefore[index] ?? 0),
    0,
  );
  expect(ahead, 'refreshes started ahead of expiry').toBe(grants.length);
  for (const tab of tabs) {
    await expect(tab.getByTestId('repeated')).toHaveText('0');
    await expect(tab.getByTestId('status')).toHaveText('Signed in');
  }
  annotate(grants, 0);
});

test('a reload keeps the session, and signing out in one tab signs out every tab and revokes the token', async ({
  context,
}) => {
  const { issuer } = REACTIVE;
  await useProvider(context, issuer, { refreshAhead: false });
  const [first, second] = await openSignedInTabs(context, 2);
  if (!first || !second) throw new Error('no tabs');
  const before = await stats(issuer);

  await first.reload();
  await expect(first.getByTestId('status')).toHaveText('Signed in');
  await first.getByTestId('call').click();
  await expect(first.getByTestId('answered')).toHaveText('1');
  // The reload takes the access token from the live second tab over the channel when it holds one,
  // and otherwise spends one refresh grant in restore() (or on the call's 401), never more.
  const reloadGrants = (await stats(issuer)).refreshGrants - before.refreshGrants;
  expect(reloadGrants, 'refresh grants of the reload').toBeLessThanOrEqual(1);

  await second.getByTestId('sign-out').click();

  await expect(second.getByTestId('status')).toHaveText('Signed out');
  await expect(second.getByTestId('ended')).toHaveCount(0);
  await expect(first.getByTestId('status')).toHaveText('Signed out', { timeout: 1_000 });
  await expect(first.getByTestId('ended')).toHaveText('You signed out in another tab.');
  expect(await first.evaluate(() => Object.keys(localStorage))).toEqual([]);
  // The provider revoked the sign-in (RFC 7009): the refresh token is worthless even if copied.
  await expect.poll(async () => (await stats(issuer)).revoked - before.revoked).toBe(1);

  await first.reload();
  await expect(first.getByTestId('status')).toHaveText('Signed out');
  const after = await stats(issuer);
  expect(after.refreshGrants - before.refreshGrants, 'no refresh after the sign-out').toBe(reloadGrants);
  expect(after.reuseDetected - before.reuseDetected).toBe(0);
});

test('DPoP: the tokens are bound to one key of the browser, kept over a reload and shared by the tabs; a copied token is refused', async ({
  context,
}) => {
  const { issuer } = DPOP;
  await useProvider(context, issuer, { dpop: true, refreshAhead: false });
  const proofs = recordProofs(context, issuer);
  const start = await stats(issuer);
  const first = await context.newPage();
  const exchanged = first.waitForResponse(
    (response) => grantType(response.request(), issuer) === 'authorization_code' && response.status() === 200,
  );

  // The sign-in: oauth4webapi exchanges the code with a proof of the key withDPoP() made and stored.
  await signIn(first);
  const tokens = (await (await exchanged).json()) as { token_type: string; access_token: string };
  expect(tokens.token_type).toBe('DPoP');

  // The access token copied out of the page, replayed without the key, is refused; the page's own
  // calls with it, just after, are answered (checked below): refused for the key, not for its age.
  // (The provider says only "invalid token provided" in either case.)
  const copied = tokens.access_token;
  const userinfo = `${issuer}/me`;
  const asBearer = await fetch(userinfo, { headers: { authorization: `Bearer ${copied}` } });
  expect(asBearer.status, 'the bound token as Bearer').toBe(401);
  expect(asBearer.headers.get('www-authenticate')).toContain('error="invalid_token"');
  const withoutProof = await fetch(userinfo, { headers: { authorization: `DPoP ${copied}` } });
  expect(withoutProof.status, 'the bound token as DPoP, without a proof').toBe(400);
  expect(await withoutProof.json()).toMatchObject({ error: 'invalid_request' });
  // With a proof of another key (and the provider's nonce): refused too.
  const otherKey = await fetchWithProofOfAnotherKey(userinfo, copied);
  expect(otherKey.status, 'the bound token with a proof of another key').toBe(401);
  expect(otherKey.headers.get('www-authenticate')).toContain('error="invalid_token"');
  await first.getByTestId('call').click();
  await expect(first.getByTestId('answered')).toHaveText('1');
  await expect(first.getByTestId('userinfo')).toContainText('"sub": "ada"');
  const pageCalls = (await Promise.all(proofs)).filter((proof) => proof.authorization === `DPoP ${copied}`);
  expect(
    pageCalls.map((proof) => proof.status),
    'the page’s calls with the copied token',
  ).toContain(200);

  // After expiry, a burst of 5 calls at once: one refresh grant (with a proof), every call answered.
  const burst = await stats(issuer);
  await post(`${issuer}/__harness/expire-access-tokens`);
  await burstOfCalls(first, 5);
  await expect(first.getByTestId('answered')).toHaveText('6');
  await expect(first.getByTestId('failed')).toHaveText('0');
  let now = await stats(issuer);
  expect(now.refreshGrants - burst.refreshGrants, 'refresh grants for the burst').toBe(1);
  expect(now.userinfo.ok - burst.userinfo.ok, 'calls answered by userinfo').toBe(5);

  // A reload: the key comes back from IndexedDB, and the refresh token bound to it is accepted.
  const reload = now;
  await first.reload();
  await expect(first.getByTestId('status')).toHaveText('Signed in');
  await first.getByTestId('call').click();
  await expect(first.getByTestId('answered')).toHaveText('1');
  now = await stats(issuer);
  expect(now.refreshGrants - reload.refreshGrants, 'the reload’s refresh grant').toBe(1);

  // A second tab: the same key; after an expiry, calls in both tabs at once make one refresh grant.
  const second = await context.newPage();
  await second.goto('/');
  await expect(second.getByTestId('status')).toHaveText('Signed in');
  const tabs = await stats(issuer);
  await post(`${issuer}/__harness/expire-access-tokens`);
  await Promise.all([burstOfCalls(first, 3), burstOfCalls(second, 3)]);
  await expect(first.getByTestId('answered')).toHaveText('4');
  await expect(second.getByTestId('answered')).toHaveText('3');
  for (const tab of [first, second]) await expect(tab.getByTestId('failed')).toHaveText('0');
  now = await stats(issuer);
  expect(now.refreshGrants - tabs.refreshGrants, 'refresh grants for both tabs').toBe(1);

  // Every proof the provider got, from oauth4webapi and from both tabs, names the same public key;
  // every token request carried one, and every userinfo call went as `DPoP` with a proof.
  const seen = await Promise.all(proofs);
  const grants = seen.filter((proof) => proof.url === `${issuer}/token`);
  expect(grants.filter((proof) => proof.grantType === 'authorization_code').length).toBeGreaterThanOrEqual(1);
  expect(grants.filter((proof) => proof.grantType === 'refresh_token').length).toBeGreaterThanOrEqual(3);
  expect(grants.every((proof) => proof.key !== null)).toBe(true);
  const calls = seen.filter((proof) => proof.url === userinfo);
  expect(calls.length).toBeGreaterThanOrEqual(11);
  expect(calls.every((proof) => proof.key !== null && proof.authorization?.startsWith('DPoP '))).toBe(true);
  expect(new Set(seen.map((proof) => proof.key)), 'public keys in the proofs').toEqual(new Set([seen[0]?.key]));
  expect(new Set(seen.map((proof) => proof.page)).size, 'tabs that sent proofs').toBe(2);

  // The provider asked for nonces, and was answered: no refresh refused, no sign-in revoked.
  expect(now.dpopNonceChallenges - start.dpopNonceChallenges, 'nonce challenges').toBeGreaterThanOrEqual(1);
  expect(now.refreshFailures['invalid_grant'] ?? 0, 'refused refresh grants').toBe(
    start.refreshFailures['invalid_grant'] ?? 0,
  );
  expect(now.reuseDetected - start.reuseDetected).toBe(0);
  expect(now.revoked - start.revoked).toBe(0);
  test.info().annotations.push({
    type: 'DPoP',
    description: `${seen.length} proofs, one key; ${now.dpopNonceChallenges - start.dpopNonceChallenges} nonce challenges`,
  });
});

interface ProviderStats {
  readonly codeGrants: number;
  readonly refreshGrants: number;
  readonly refreshFailures: Readonly<Record<string, number>>;
  readonly reuseDetected: number;
  readonly revoked: number;
  readonly userinfo: { readonly ok: number; readonly unauthorized: number };
  readonly dpopNonceChallenges: number;
}

/** What the provider counted so far (the harness's hook, outside the provider). */
async function stats(issuer: string): Promise<ProviderStats> {
  const response = await fetch(`${issuer}/__harness/stats`);
  return (await response.json()) as ProviderStats;
}

/** No refresh refused, no rotated token presented again, no sign-in revoked between the two counts. */
function expectNoSessionEnded(before: ProviderStats, after: ProviderStats): void {
  expect(after.reuseDetected - before.reuseDetected, 'rotated refresh tokens presented again').toBe(0);
  expect(after.refreshFailures, 'refused refresh grants').toEqual(before.refreshFailures);
  expect(after.revoked - before.revoked, 'sign-ins revoked').toBe(0);
}

/** The app's config.json names `issuer`: one build, any provider (as a deployment would). */
async function useProvider(
  context: BrowserContext,
  issuer: string,
  options: { dpop?: boolean; refreshAhead?: boolean } = {},
): Promise<void> {
  await context.route('**/config.json', (route) => route.fulfill({ json: { issuer, ...options } }));
}

async function post(url: string): Promise<void> {
  const response = await fetch(url, { method: 'POST' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
}

/** Clicks "Call userinfo" `count` times in one task: the calls go out together. */
async function burstOfCalls(page: Page, count: number): Promise<void> {
  await page.getByTestId('call').evaluate((button: HTMLElement, times) => {
    for (let index = 0; index < times; index++) button.click();
  }, count);
}

interface SeenProof {
  readonly url: string;
  readonly grantType: string | null;
  /** The proof's public key (`x.y` of its `jwk`), or null without a proof. */
  readonly key: string | null;
  readonly authorization: string | undefined;
  readonly page: Page | null;
  /** The answer's status (0: none). */
  readonly status: number;
}

/** The DPoP proofs of every request of `context` to `issuer`'s token and userinfo endpoints. */
function recordProofs(context: BrowserContext, issuer: string): Promise<SeenProof>[] {
  const seen: Promise<SeenProof>[] = [];
  context.on('request', (request) => {
    const url = request.url().split('?')[0] ?? '';
    if (request.method() === 'OPTIONS' || (url !== `${issuer}/token` && url !== `${issuer}/me`)) return;
    seen.push(
      Promise.all([request.allHeaders(), request.response()]).then(([headers, response]) => {
        const proof = headers['dpop'];
        const header = proof
          ? (JSON.parse(Buffer.from(proof.split('.')[0] ?? '', 'base64url').toString()) as {
              jwk: { x: string; y: string };
            })
          : null;
        return {
          url,
          grantType: grantType(request, issuer),
          key: header ? `${header.jwk.x}.${header.jwk.y}` : null,
          authorization: headers['authorization'],
          page: request.frame().page(),
          status: response?.status() ?? 0,
        };
      }),
    );
  });
  return seen;
}

/**
 * GET `url` with `token` and a valid proof signed by a key of this process (not the browser's): first
 * without a nonce, then with the one the provider asks for.
 */
async function fetchWithProofOfAnotherKey(url: string, token: string): Promise<Response> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const proof = (nonce?: string) => {
    const input = `${encode({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${encode({
      jti: randomUUID(),
      htm: 'GET',
      htu: url,
      iat: Math.floor(Date.now() / 1000),
      ath: createHash('sha256').update(token).digest('base64url'),
      ...(nonce ? { nonce } : {}),
    })}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  };
  const send = (nonce?: string) => fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof(nonce) } });
  const challenged = await send();
  const nonce = challenged.headers.get('dpop-nonce');
  return challenged.status === 401 && nonce ? send(nonce) : challenged;
}

/** Signs in from the app's start page through the provider's login and consent pages. */
async function signIn(page: Page): Promise<void> {
  await page.goto('/');
  await page.getByTestId('sign-in').click();
  await page.locator('input[name="login"]').fill('ada');
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('status')).toHaveText('Signed in');
  await expect(page).toHaveURL('/');
}

/**
 * Signs in in a first tab, then opens `count - 1` more at the same moment: each restores the session
 * from the refresh token in localStorage, taking turns under the cross-tab lock.
 */
async function openSignedInTabs(context: BrowserContext, count: number): Promise<Page[]> {
  const first = await context.newPage();
  await signIn(first);
  const others = await Promise.all(Array.from({ length: count - 1 }, () => context.newPage()));
  await Promise.all(others.map((tab) => tab.goto('/')));
  const tabs = [first, ...others];
  for (const tab of tabs) await expect(tab.getByTestId('status')).toHaveText('Signed in');
  return tabs;
}

/** The moments (ms) at which the tabs of `context` send a refresh grant to `issuer`, from now on. */
function recordRefreshGrants(context: BrowserContext, issuer: string): number[] {
  const moments: number[] = [];
  context.on('request', (request) => {
    if (grantType(request, issuer) === 'refresh_token') moments.push(Date.now());
  });
  return moments;
}

function grantType(request: Request, issuer: string): string | null {
  if (request.method() !== 'POST' || request.url() !== `${issuer}/token`) return null;
  return new URLSearchParams(request.postData() ?? '').get('grant_type');
}

/** The time between each moment and the one before, with the index of the earlier one. */
function gaps(moments: readonly number[]): [number, number][] {
  return moments.slice(1).map((moment, index) => [moment - (moments[index] ?? 0), index + 1]);
}

/** Shows in the report how many grants came how far apart, and how many calls met a 401. */
function annotate(grants: readonly number[], unauthorized: number): void {
  const apart = gaps(grants).map(([gap]) => (gap / 1000).toFixed(1));
  test.info().annotations.push({
    type: 'refresh grants',
    description: `${grants.length}, ${apart.join(' s, ')} s apart; userinfo 401s: ${unauthorized}`,
  });
}

/** Every call of every tab has its answer, and each answer was a success. */
async function expectAllAnswered(tabs: readonly Page[]): Promise<void> {
  for (const tab of tabs) {
    await expect.poll(async () => (await counters(tab)).pending).toBe(0);
    const { calls, answered, failed } = await counters(tab);
    expect(failed, 'failed calls').toBe(0);
    expect(answered).toBe(calls);
    expect(calls).toBeGreaterThan(0);
  }
}

interface Counters {
  readonly calls: number;
  readonly answered: number;
  readonly failed: number;
  readonly pending: number;
  readonly repeated: number;
  readonly refreshes: number;
  readonly ahead: number;
  readonly received: number;
}

/** The counters a tab shows. */
async function counters(tab: Page): Promise<Counters> {
  const read = async (id: string) => Number(await tab.getByTestId(id).textContent());
  const [calls, answered, failed, repeated, refreshes, ahead, received] = await Promise.all(
    ['calls', 'answered', 'failed', 'repeated', 'refreshes', 'ahead', 'received'].map(read),
  );
  return {
    calls: calls ?? 0,
    answered: answered ?? 0,
    failed: failed ?? 0,
    pending: (calls ?? 0) - (answered ?? 0) - (failed ?? 0),
    repeated: repeated ?? 0,
    refreshes: refreshes ?? 0,
    ahead: ahead ?? 0,
    received: received ?? 0,
  };
}
