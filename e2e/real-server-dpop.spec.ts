import { type Page, type Request, expect, test } from '@playwright/test';
import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createHash, randomUUID } from 'node:crypto';

import {
  countRefreshes,
  expireTokens,
  expectEveryCallSucceeded,
  fireEverywhere,
  openTabs,
  refreshOnlyOn401,
} from './lab-tabs';
import { signIn } from './sign-in';

// withDPoP() in Chromium against the reference server with DPOP=required (the `real-dpop` build and its
// server, see playwright.real.config.ts): tokens bound to a P-256 key the browser made and keeps in
// IndexedDB, a proof signed for every call. An expiry is the server refusing the token (the lab's
// "Expire access token now").

// These tests watch the refresh that a refused token's 401 starts: no refresh ahead of expiry.
test.beforeEach(({ context }) => refreshOnlyOn401(context));

/** A request as it left the browser: its method, URL and every header. */
interface Sent {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

/** Records every request of `page` to /auth and /api, with all headers (the DPoP ones included). */
function recordRequests(page: Page): Sent[] {
  const sent: Sent[] = [];
  page.on('request', (request: Request) => {
    const url = new URL(request.url());
    if (!/^\/(auth|api)\//.test(url.pathname)) return;
    void request.allHeaders().then((headers) => sent.push({ method: request.method(), url, headers }));
  });
  return sent;
}

/** A proof's header and claims, decoded (the server verifies them; here they are only read). */
function decode(proof: string | undefined): { header: { jwk: JWK }; claims: Record<string, unknown> } {
  const [header, claims] = (proof ?? '')
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, claims };
}

const athOf = (token: string) => createHash('sha256').update(token).digest('base64url');

/** The public key a proof was signed with, as one comparable string. */
const keyOf = (proof: string | undefined) => {
  const { crv, kty, x, y } = decode(proof).header.jwk;
  return JSON.stringify({ crv, kty, x, y });
};

test('signs in with a proof, and after an expiry a burst of calls makes one refresh, every call 200 with a DPoP token', async ({
  page,
}) => {
  const sent = recordRequests(page);
  const refreshes = countRefreshes(page.context());
  await signIn(page);

  const logins = sent.filter((request) => request.url.pathname === '/auth/login');
  expect(logins.length, 'a first login meets the nonce challenge and is repeated once').toBeGreaterThanOrEqual(1);
  expect(logins.length).toBeLessThanOrEqual(2);
  const login = logins.at(-1)!;
  expect(login.headers['authorization']).toBeUndefined();
  expect(decode(login.headers['dpop']).claims).toMatchObject({ htm: 'POST', htu: `${login.url.origin}/auth/login` });
  expect(decode(login.headers['dpop']).claims['ath']).toBeUndefined();
  expect(decode(login.headers['dpop']).claims['nonce']).toEqual(expect.any(String));

  await expireTokens([page]);
  const before = refreshes();
  await page.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([page]);
  expect(refreshes() - before).toBe(1);

  const calls = sent.filter((request) => request.url.pathname.startsWith('/api/'));
  expect(calls.length).toBeGreaterThanOrEqual(10);
  for (const call of calls) {
    const token = call.headers['authorization']?.replace(/^DPoP /, '');
    expect(call.headers['authorization']).toMatch(/^DPoP [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decode(call.headers['dpop']).claims).toMatchObject({
      htm: 'GET',
      htu: `${call.url.origin}${call.url.pathname}`,
      ath: athOf(token!),
    });
  }
  const proofs = sent.map((request) => request.headers['dpop']);
  expect(new Set(proofs.map((proof) => decode(proof).claims['jti'])).size, 'a new proof for every request').toBe(
    proofs.length,
  );
  expect(new Set(proofs.map(keyOf)).size, 'one key').toBe(1);

  // The lab shows the last proof, decoded.
  await expect(page.getByTestId('dpop-scheme')).toHaveText('DPoP');
  await expect(page.getByTestId('dpop-call')).toContainText('GET /api/v1/users/');
  await expect(page.getByTestId('dpop-header')).toContainText('"typ": "dpop+jwt"');
  await expect(page.getByTestId('dpop-claims')).toContainText('"ath": ');
  await expect(page.getByTestId('dpop-claims')).toContainText('"nonce": ');
  await page.setViewportSize({ width: 360, height: 800 });
  const card = page.locator('app-lab-dpop-card mat-card');
  expect(await card.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await card.screenshot({ path: 'test-results/screenshots/real-server-dpop-card-360.png' });
});

test('a token and a refresh cookie copied out of the browser are refused from outside it', async ({
  page,
  request,
}) => {
  const sent = recordRequests(page);
  await signIn(page);
  await page.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([page]);
  const call = sent.filter((entry) => entry.url.pathname.startsWith('/api/')).at(-1)!;
  const token = call.headers['authorization']!.replace(/^DPoP /, '');
  const url = `${call.url.pathname}${call.url.search}`;

  // The token alone, as a bearer token or as a DPoP token without a proof.
  const asBearer = await request.get(url, { headers: { Authorization: `Bearer ${token}` } });
  expect(asBearer.status()).toBe(401);
  const noProof = await request.get(url, { headers: { Authorization: `DPoP ${token}` } });
  expect(noProof.status()).toBe(401);
  const nonce = noProof.headers()['dpop-nonce'];
  expect(nonce).toEqual(expect.any(String));

  // The token with the very proof the browser sent: a proof is good for one request.
  const replayed = await request.get(url, { headers: { Authorization: `DPoP ${token}`, DPoP: call.headers['dpop']! } });
  expect(replayed.status()).toBe(401);
  expect(await replayed.json()).toMatchObject({ error: { code: 'invalid_dpop_proof' } });

  // The token with a fresh, valid proof of another key (the thief's): the token is bound to the browser's.
  const thief = await generateKeyPair('ES256');
  const thiefProof = (htm: string, htu: string, claims: Record<string, string> = {}) =>
    proofOf(thief, { htm, htu, nonce: nonce!, ...claims });
  const otherKey = await request.get(url, {
    headers: {
      Authorization: `DPoP ${token}`,
      DPoP: await thiefProof('GET', `${call.url.origin}${call.url.pathname}`, { ath: athOf(token) }),
    },
  });
  expect(otherKey.status()).toBe(401);
  expect(await otherKey.json()).toMatchObject({ error: { code: 'InvalidToken' } });

  // The refresh cookie, without a proof (400: a bound session needs one) and with the thief's (401:
  // not the session's key). Neither gets a token or a cookie, and neither ends the session.
  const cookie = (await page.context().cookies()).find(({ name }) => name === 'refreshToken')!;
  const refreshUrl = `${call.url.origin}/auth/refresh`;
  for (const [proof, status] of [
    [undefined, 400],
    [await thiefProof('POST', refreshUrl), 401],
  ] as const) {
    const refresh = await request.post('/auth/refresh', {
      headers: { Cookie: `refreshToken=${cookie.value}`, Origin: call.url.origin, ...(proof ? { DPoP: proof } : {}) },
    });
    expect(refresh.status(), await refresh.text()).toBe(status);
    expect(await refresh.text()).not.toContain('accessToken');
    expect(refresh.headers()['set-cookie'] ?? '').not.toMatch(/refreshToken=[^;]/);
  }

  // The browser, with its key, is still signed in, and its next refresh is accepted.
  await expireTokens([page]);
  await page.getByTestId('fire-calls').click();
  await expect(page.getByTestId('success-count')).toHaveText('10');
  await expect(page.getByTestId('failure-count')).toHaveText('0');
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
});

test('a reload keeps the session: the key comes back from IndexedDB and the bound refresh cookie is accepted', async ({
  page,
}) => {
  const sent = recordRequests(page);
  await signIn(page);
  const keyBefore = keyOf(sent.find((entry) => entry.url.pathname === '/auth/login')?.headers['dpop']);

  await page.reload();
  await expect(page.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  await expireTokens([page]);
  await page.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([page]);

  const afterReload = sent.filter((entry) => entry.url.pathname !== '/auth/login');
  expect(afterReload.some((entry) => entry.url.pathname === '/auth/refresh')).toBe(true);
  for (const entry of afterReload) expect(keyOf(entry.headers['dpop'])).toBe(keyBefore);
});

test('two tabs share one key and make one refresh per expiry', async ({ context }) => {
  const refreshes = countRefreshes(context);
  const tabs = await openTabs(context, 2);
  const sent = tabs.map(recordRequests);

  for (const expiry of [1, 2]) {
    await expireTokens(tabs);
    const before = refreshes();
    await fireEverywhere(tabs);
    await expectEveryCallSucceeded(tabs);
    expect(refreshes() - before, `refresh calls at expiry ${expiry}`).toBe(1);
  }
  const keys = new Set(sent.flat().map((entry) => keyOf(entry.headers['dpop'])));
  expect(sent.every((tab) => tab.length >= 20)).toBe(true);
  expect(keys.size).toBe(1);
});

/** A DPoP proof signed with `pair`, as an attacker outside the browser would make one. */
async function proofOf(
  pair: Awaited<ReturnType<typeof generateKeyPair>>,
  claims: Record<string, string>,
): Promise<string> {
  return new SignJWT({ ...claims, jti: randomUUID() })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: await exportJWK(pair.publicKey) })
    .setIssuedAt()
    .sign(pair.privateKey);
}

test('the key gone (the site data cleared): a new tab takes the open tab’s session and the key it is bound to, with no refresh, and nobody is signed out', async ({
  context,
}) => {
  const refreshes = countRefreshes(context);
  const [first] = await openTabs(context, 1);
  if (!first) throw new Error('no tab');
  // The key of the session so far, from the lab's DPoP card (its sign-in's proof).
  const oldKey = keyOfCard(await first.getByTestId('dpop-header').textContent());
  await deleteKeyDatabase(first);

  // A new tab finds no key and makes one, which the session does not know. It asks the first tab for
  // its token, and the first tab stores the session's key before it answers.
  const second = await context.newPage();
  const secondSent = recordRequests(second);
  await second.goto('/lab');
  await expect(second.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  expect(refreshes(), 'refresh calls to open the new tab').toBe(0);
  for (const tab of [first, second]) await tab.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([first, second]);

  const apiCalls = secondSent.filter((entry) => entry.url.pathname.startsWith('/api/'));
  expect(apiCalls.length).toBeGreaterThanOrEqual(10);
  for (const entry of apiCalls) expect(keyOf(entry.headers['dpop'])).toBe(oldKey);
});

test('the key gone: the first tab’s next refresh keeps the session and puts its key back, and a new tab follows it', async ({
  context,
}) => {
  const refreshes = countRefreshes(context);
  const [first] = await openTabs(context, 1);
  if (!first) throw new Error('no tab');
  const oldKey = keyOfCard(await first.getByTestId('dpop-header').textContent());
  await deleteKeyDatabase(first);

  // The first tab's token expires: its refresh, with the session's key, is accepted.
  await expireTokens([first]);
  await first.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([first]);
  expect(refreshes()).toBe(1);

  // A new tab takes that token and signs with the key the first one put back.
  const second = await context.newPage();
  const secondSent = recordRequests(second);
  await second.goto('/lab');
  await expect(second.getByTestId('signed-in-as')).toHaveText('Signed in as ada');
  await second.getByTestId('fire-calls').click();
  await expectEveryCallSucceeded([second]);
  expect(refreshes()).toBe(1);
  const stored = await second.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const opening = indexedDB.open('ngx-token-refresh');
        opening.onsuccess = () => {
          const names = opening.result.objectStoreNames.length;
          opening.result.close();
          resolve(names);
        };
        opening.onerror = () => reject(opening.error);
      }),
  );
  expect(stored, 'the key database is back').toBeGreaterThan(0);
  for (const entry of secondSent.filter((sent) => sent.url.pathname.startsWith('/api/')))
    expect(keyOf(entry.headers['dpop'])).toBe(oldKey);
});

/** The public key of the proof the lab's DPoP card shows, as {@link keyOf} gives it. */
function keyOfCard(header: string | null): string {
  const { crv, kty, x, y } = (JSON.parse(header ?? '{}') as { jwk: JWK }).jwk;
  return JSON.stringify({ crv, kty, x, y });
}

/** Deletes the key database of the origin, as clearing the site's data does. */
async function deleteKeyDatabase(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const deleting = indexedDB.deleteDatabase('ngx-token-refresh');
        deleting.onsuccess = () => resolve();
        deleting.onerror = () => reject(deleting.error);
        deleting.onblocked = () => reject(new Error('the key database is held open'));
      }),
  );
}
