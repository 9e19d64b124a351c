/* global fetch, setTimeout, URLSearchParams */
// The harness's backend-for-frontend parts, against the provider they drive: the confidential `bff`
// client, `hold-next-refresh` / `release`, `browseSignIn` / `browseSignOut` and the provider's
// end-session endpoint. Run: node --import tsx --test e2e/oidc/oidc-provider-server.test.mjs
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';

import { generateKeyPair, generateProof } from 'dpop';

import { BFF_CLIENT_ID, CookieJar, browseSignIn, browseSignOut, startOidcProvider } from './oidc-provider-server.mjs';

const SECRET = 'bff-test-secret';
/** A broken hold would keep a test waiting for ever: it fails instead. */
const LIMIT = { timeout: 10_000 };

/** @type {Awaited<ReturnType<typeof startOidcProvider>>} */
let provider;
/** @type {Awaited<ReturnType<typeof startApp>>} */
let app;

before(async () => {
  app = await startApp();
  provider = await startOidcProvider({
    bffClient: {
      secret: SECRET,
      redirectUris: [`${app.origin}/callback`, `${app.origin}/callback-redirect`, `${app.origin}/callback-page`],
      postLogoutRedirectUris: [`${app.origin}/signed-out`],
    },
  });
  app.issuer = provider.issuer;
});

after(async () => {
  await provider?.close();
  await app?.close();
});

beforeEach(() => provider.resetStats());

describe('the bff client', LIMIT, () => {
  test('exchanges its code only with its secret', async () => {
    const { code, verifier } = await authorize();

    const withoutSecret = await exchange(code, verifier, { client_id: BFF_CLIENT_ID });
    assert.equal(withoutSecret.status, 401);
    assert.equal(withoutSecret.body.error, 'invalid_client');
    const wrongSecret = await exchange(code, verifier, {}, basic('not-the-secret'));
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongSecret.body.error, 'invalid_client');

    // The refused attempts never reached the code: it is still good for the client with its secret.
    const signedIn = await exchange(code, verifier, {}, basic(SECRET));
    assert.equal(signedIn.status, 200);
    assert.equal(typeof signedIn.body.refresh_token, 'string');
    assert.equal(typeof signedIn.body.id_token, 'string');
    assert.equal(provider.stats().codeGrants, 1);
  });

  test('rotates its refresh token at every grant, and a spent one presented again revokes the grant', async () => {
    const first = await provider.signIn('ada', { client: BFF_CLIENT_ID });

    assert.equal((await refresh(first.refresh_token, { client_id: BFF_CLIENT_ID })).status, 401);
    const second = await refresh(first.refresh_token, {}, basic(SECRET));
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refresh_token, first.refresh_token);
    // The same secret in the body (client_secret_post) is accepted too.
    const third = await refresh(second.body.refresh_token, { client_id: BFF_CLIENT_ID, client_secret: SECRET });
    assert.equal(third.status, 200);
    assert.notEqual(third.body.refresh_token, second.body.refresh_token);

    const reuse = await refresh(first.refresh_token, {}, basic(SECRET));
    assert.equal(reuse.status, 400);
    assert.equal(reuse.body.error, 'invalid_grant');
    const newest = await refresh(third.body.refresh_token, {}, basic(SECRET));
    assert.equal(newest.body.error, 'invalid_grant');
    assert.deepEqual(pick(provider.stats(), 'refreshGrants', 'reuseDetected', 'revoked'), {
      refreshGrants: 2,
      reuseDetected: 1,
      revoked: 1,
    });
  });
});

describe('hold-next-refresh and release', LIMIT, () => {
  test('drop a held refresh unprocessed when its client was killed meanwhile', async () => {
    const tokens = await provider.signIn('ada', { client: BFF_CLIENT_ID });
    provider.holdNextRefresh();
    const client = spawnRefresh(tokens.refresh_token);
    await waitFor(() => provider.stats().heldRefreshes.waiting === 1);

    client.kill('SIGKILL');
    await once(client, 'exit');
    await waitFor(() => provider.stats().heldRefreshes.waitingClientGone === 1);
    assert.deepEqual(await provider.release(), { released: 0, dropped: 1 });

    assert.equal(provider.stats().refreshGrants, 0);
    assert.deepEqual(provider.stats().heldRefreshes, {
      held: 1,
      released: 0,
      dropped: 1,
      waiting: 0,
      waitingClientGone: 0,
    });
    // The provider never saw it: the refresh token is unspent, and the next refresh is no reuse.
    const next = await refresh(tokens.refresh_token, {}, basic(SECRET));
    assert.equal(next.status, 200);
    assert.deepEqual(pick(provider.stats(), 'refreshGrants', 'reuseDetected'), { refreshGrants: 1, reuseDetected: 0 });
  });

  test('let a held refresh through to the provider when its client is still waiting (over HTTP)', async () => {
    const tokens = await provider.signIn('ada', { client: BFF_CLIENT_ID });
    assert.deepEqual(await harness('hold-next-refresh'), { holdNextRefresh: true });
    const pending = refresh(tokens.refresh_token, {}, basic(SECRET));
    await waitFor(() => provider.stats().heldRefreshes.waiting === 1);
    assert.equal(provider.stats().refreshGrants, 0);

    assert.deepEqual(await harness('release'), { released: 1, dropped: 0 });
    // `release` answers once the provider has answered the held grant.
    assert.equal(provider.stats().refreshGrants, 1);
    const granted = await pending;
    assert.equal(granted.status, 200);
    assert.notEqual(granted.body.refresh_token, tokens.refresh_token);
    assert.deepEqual(provider.stats().heldRefreshes, {
      held: 1,
      released: 1,
      dropped: 0,
      waiting: 0,
      waitingClientGone: 0,
    });
  });

  test('hold only the next refresh grant: a code exchange passes, and so does the refresh after it', async () => {
    const tokens = await provider.signIn('ada', { client: BFF_CLIENT_ID });
    provider.holdNextRefresh();
    await provider.signIn('bob', { client: BFF_CLIENT_ID });
    const pending = refresh(tokens.refresh_token, {}, basic(SECRET));
    await waitFor(() => provider.stats().heldRefreshes.waiting === 1);
    const other = await provider.signIn('cy', { client: BFF_CLIENT_ID });
    assert.equal((await refresh(other.refresh_token, {}, basic(SECRET))).status, 200);

    await provider.release();
    assert.equal((await pending).status, 200);
    assert.deepEqual(pick(provider.stats(), 'codeGrants', 'refreshGrants'), { codeGrants: 3, refreshGrants: 2 });
    assert.equal(provider.stats().heldRefreshes.held, 1);
  });
});

describe('issued-tokens', LIMIT, () => {
  test('lists every token the token endpoint answered, and whether each access token is still accepted', async () => {
    const before = await (await fetch(`${provider.issuer}/__harness/issued-tokens`)).json();
    const first = await provider.signIn('ada', { client: BFF_CLIENT_ID });
    const second = (await refresh(first.refresh_token, {}, basic(SECRET))).body;

    const response = await fetch(`${provider.issuer}/__harness/issued-tokens`);
    assert.equal(response.status, 200);
    const listed = await response.json();
    const added = (kind) => listed[kind].slice(before[kind].length);
    assert.deepEqual(added('accessTokens'), [
      { value: first.access_token, clientId: BFF_CLIENT_ID, live: true },
      { value: second.access_token, clientId: BFF_CLIENT_ID, live: true },
    ]);
    assert.deepEqual(added('refreshTokens'), [
      { value: first.refresh_token, clientId: BFF_CLIENT_ID },
      { value: second.refresh_token, clientId: BFF_CLIENT_ID },
    ]);
    assert.deepEqual(added('idTokens'), [
      { value: first.id_token, clientId: BFF_CLIENT_ID },
      { value: second.id_token, clientId: BFF_CLIENT_ID },
    ]);

    provider.expireAccessTokens();
    assert.deepEqual(
      provider.issuedTokens().accessTokens.map((token) => token.live),
      listed.accessTokens.map(() => false),
    );
  });
});

describe('the bff client with dpop', LIMIT, () => {
  /** @type {Awaited<ReturnType<typeof startOidcProvider>>} */
  let dpopProvider;
  before(async () => {
    dpopProvider = await startOidcProvider({
      dpop: true,
      bffClient: { secret: SECRET, redirectUris: [`${app.origin}/callback`] },
    });
  });
  after(() => dpopProvider?.close());

  test('gets DPoP-bound access tokens, and a refresh token bound to its secret rather than to a key', async () => {
    const { issuer } = dpopProvider;
    const tokenUrl = `${issuer}/token`;
    const { code, verifier } = await authorize({ issuer });
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${app.origin}/callback`,
      code_verifier: verifier,
    };
    const key = await generateKeyPair('ES256');
    const signedIn = await withDpopNonce(key, 'POST', tokenUrl, (dpop) =>
      tokenRequest(issuer, form, basic(SECRET), { dpop }),
    );
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.body.token_type, 'DPoP');

    const refreshForm = { grant_type: 'refresh_token', refresh_token: signedIn.body.refresh_token };
    const withoutProof = await tokenRequest(issuer, refreshForm, basic(SECRET));
    assert.equal(withoutProof.body.error, 'invalid_grant');
    // Any key's proof will do for the refresh (RFC 9449 §5: a confidential client's refresh token is
    // not bound to a key); the new access token is bound to that key.
    const otherKey = await generateKeyPair('ES256');
    const refreshed = await withDpopNonce(otherKey, 'POST', tokenUrl, (dpop) =>
      tokenRequest(issuer, refreshForm, basic(SECRET), { dpop }),
    );
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.body.token_type, 'DPoP');
    const userinfo = (keyPair) =>
      withDpopNonce(
        keyPair,
        'GET',
        `${issuer}/me`,
        (dpop) => fetch(`${issuer}/me`, { headers: { authorization: `DPoP ${refreshed.body.access_token}`, dpop } }),
        refreshed.body.access_token,
      );
    assert.equal((await userinfo(otherKey)).status, 200);
    assert.equal((await userinfo(key)).status, 401);
  });
});

describe('end session (RP-initiated logout)', LIMIT, () => {
  test('ends the provider session with id_token_hint and sends the browser to the registered post_logout_redirect_uri', async () => {
    const { tokens, cookies } = await signInInBrowser();
    assert.equal((await authorize({ cookies, prompt: 'none' })).code.length > 0, true);

    const signedOut = await browseSignOut(endSessionUrl(tokens.id_token, `${app.origin}/signed-out`, 'bye'), {
      cookies,
      stopAt: (next) => next.origin === app.origin,
    });
    assert.equal(`${signedOut.url.origin}${signedOut.url.pathname}`, `${app.origin}/signed-out`);
    assert.equal(signedOut.url.searchParams.get('state'), 'bye');
    // The same browser is signed out at the provider: a silent sign-in needs a login now.
    assert.equal((await authorize({ cookies, prompt: 'none' })).error, 'login_required');
  });

  test('also from a browser without the provider session (its self-submitting form)', async () => {
    const { tokens } = await signInInBrowser();
    const signedOut = await browseSignOut(endSessionUrl(tokens.id_token, `${app.origin}/signed-out`), {
      stopAt: (next) => next.origin === app.origin,
    });
    assert.equal(`${signedOut.url.origin}${signedOut.url.pathname}`, `${app.origin}/signed-out`);
  });

  test('refuses a post_logout_redirect_uri that is not registered', async () => {
    const { tokens } = await signInInBrowser();
    const response = await fetch(endSessionUrl(tokens.id_token, `${app.origin}/elsewhere`), { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /post_logout_redirect_uri not registered/);
  });

  test('keeps an offline_access grant: its refresh token works until the client revokes it', async () => {
    const { tokens, cookies } = await signInInBrowser();
    await browseSignOut(endSessionUrl(tokens.id_token, `${app.origin}/signed-out`), {
      cookies,
      stopAt: (next) => next.origin === app.origin,
    });
    assert.equal(provider.stats().revoked, 0);
    const refreshed = await refresh(tokens.refresh_token, {}, basic(SECRET));
    assert.equal(refreshed.status, 200);

    const revocation = await fetch(new URL('/token/revocation', provider.issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(SECRET) },
      body: new URLSearchParams({ token: refreshed.body.refresh_token, token_type_hint: 'refresh_token' }),
    });
    assert.equal(revocation.status, 200);
    assert.equal(provider.stats().revoked, 1);
    assert.equal((await refresh(refreshed.body.refresh_token, {}, basic(SECRET))).body.error, 'invalid_grant');
  });
});

describe('browseSignIn from an app', LIMIT, () => {
  test("signs in from the app's own route, and its Strict cookie misses a redirect after the provider's", async () => {
    const { url, body, cookies } = await browseSignIn(`${app.origin}/login?callback=/callback-redirect`, {
      login: 'ada',
    });
    assert.equal(url.pathname, '/home');
    assert.deepEqual(JSON.parse(body), { session: null, login: 'present' });
    // The cookie is kept all the same: the next same-site request carries it.
    assert.equal(cookies.list(app.origin).find(({ name }) => name === '__Host-app-session')?.sameSite, 'strict');
    const later = await cookies.fetch(`${app.origin}/home`);
    assert.equal((await later.json()).session, 'ada');
  });

  test('a callback page that navigates on by itself gets the Strict cookie back at once', async () => {
    const { url, body } = await browseSignIn(`${app.origin}/login?callback=/callback-page`, { login: 'bob' });
    assert.equal(url.pathname, '/home');
    assert.deepEqual(JSON.parse(body), { session: 'bob', login: 'present' });
  });
});

/**
 * An app on 127.0.0.1 (another site than the provider on localhost), as a backend-for-frontend is:
 * `/login` starts the code flow with a SameSite=Lax login cookie holding the PKCE verifier;
 * `/callback-redirect` and `/callback-page` exchange the code, set a Strict `__Host-` session cookie
 * (its value: the login) and go on to `/home`, the first by a 303, the second by a page with a meta
 * refresh; `/home` answers which of the two cookies arrived.
 */
async function startApp() {
  const app = { issuer: '', origin: '', close: () => Promise.resolve() };
  const server = createServer((req, res) => {
    const url = new URL(req.url, app.origin);
    const cookies = Object.fromEntries(
      (req.headers.cookie ?? '')
        .split(';')
        .filter(Boolean)
        .map((pair) => pair.trim().split('=')),
    );
    if (url.pathname === '/login') {
      const verifier = randomBytes(32).toString('base64url');
      const redirectUri = `${app.origin}${url.searchParams.get('callback')}`;
      const authorization = authorizationUrl(app.issuer, redirectUri, verifier, 'state');
      res.writeHead(302, {
        location: authorization.href,
        'set-cookie': `__Host-app-login=${verifier}; Path=/; Secure; HttpOnly; SameSite=Lax`,
      });
      return res.end();
    }
    if (url.pathname === '/callback-redirect' || url.pathname === '/callback-page') {
      const redirectUri = `${app.origin}${url.pathname}`;
      const verifier = cookies['__Host-app-login'];
      exchangeAt(app.issuer, url.searchParams.get('code'), verifier, redirectUri, {}, basic(SECRET)).then(
        ({ status, body }) => {
          if (status !== 200) return res.writeHead(500).end(JSON.stringify(body));
          const sub = JSON.parse(Buffer.from(body.id_token.split('.')[1], 'base64url').toString()).sub;
          const session = `__Host-app-session=${sub}; Path=/; Secure; HttpOnly; SameSite=Strict`;
          if (url.pathname === '/callback-redirect')
            return res.writeHead(303, { location: '/home', 'set-cookie': session }).end();
          res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': session });
          res.end('<!doctype html><meta http-equiv="refresh" content="0;url=/home"><title>Signed in</title>');
        },
      );
      return undefined;
    }
    if (url.pathname === '/home') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          session: cookies['__Host-app-session'] ?? null,
          login: cookies['__Host-app-login'] ? 'present' : null,
        }),
      );
    }
    res.writeHead(404).end();
    return undefined;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  app.origin = `http://127.0.0.1:${server.address().port}`;
  app.close = () => new Promise((resolve) => server.close(() => resolve()));
  return app;
}

/** The bff client's authorization request, walked in a browser up to the redirect to `/callback`. */
async function authorize({ cookies = new CookieJar(), prompt = 'consent', issuer = provider.issuer } = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('base64url');
  const redirectUri = `${app.origin}/callback`;
  const walk = await browseSignIn(authorizationUrl(issuer, redirectUri, verifier, state, prompt), {
    cookies,
    stopAt: (next) => `${next.origin}${next.pathname}` === redirectUri,
  });
  assert.equal(walk.stopped, true, `the walk ended at ${walk.url} (${walk.status}): ${walk.body?.slice(0, 200)}`);
  assert.equal(walk.url.searchParams.get('state'), state);
  const code = walk.url.searchParams.get('code') ?? '';
  return { code, verifier, cookies, error: walk.url.searchParams.get('error') };
}

/** A sign-in of the bff client in a browser whose cookies (the provider's session) are kept. */
async function signInInBrowser() {
  const { code, verifier, cookies } = await authorize();
  const { status, body } = await exchange(code, verifier, {}, basic(SECRET));
  assert.equal(status, 200);
  return { tokens: body, cookies };
}

function authorizationUrl(issuer, redirectUri, verifier, state, prompt = 'consent') {
  const url = new URL('/auth', issuer);
  url.search = new URLSearchParams({
    client_id: BFF_CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri,
    // A silent sign-in cannot consent, so it asks for no offline_access.
    scope: prompt === 'none' ? 'openid' : 'openid offline_access',
    prompt,
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

function exchange(code, verifier, fields, authorization) {
  return exchangeAt(provider.issuer, code, verifier, `${app.origin}/callback`, fields, authorization);
}

function exchangeAt(issuer, code, verifier, redirectUri, fields, authorization) {
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...fields,
  };
  return tokenRequest(issuer, form, authorization);
}

function refresh(refreshToken, fields, authorization) {
  return tokenRequest(
    provider.issuer,
    { grant_type: 'refresh_token', refresh_token: refreshToken, ...fields },
    authorization,
  );
}

async function tokenRequest(issuer, form, authorization, headers = {}) {
  const response = await fetch(new URL('/token', issuer), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
      ...headers,
    },
    body: new URLSearchParams(form),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/**
 * `send(proof)` with a DPoP proof of `keyPair` for `method` `url`, once more with the provider's
 * nonce when it asks for one (it always does first, with `requireNonce`).
 */
async function withDpopNonce(keyPair, method, url, send, accessToken) {
  const first = await send(await generateProof(keyPair, url, method, undefined, accessToken));
  const nonce = first.headers.get('dpop-nonce');
  if (!nonce || (first.status !== 400 && first.status !== 401)) return first;
  return send(await generateProof(keyPair, url, method, nonce, accessToken));
}

function basic(secret) {
  return `Basic ${Buffer.from(`${BFF_CLIENT_ID}:${secret}`).toString('base64')}`;
}

function endSessionUrl(idToken, postLogoutRedirectUri, state) {
  const url = new URL('/session/end', provider.issuer);
  url.search = new URLSearchParams({
    id_token_hint: idToken,
    post_logout_redirect_uri: postLogoutRedirectUri,
    ...(state ? { state } : {}),
  }).toString();
  return url;
}

/** A refresh grant sent by another process (a backend-for-frontend instance), which then waits. */
function spawnRefresh(refreshToken) {
  const script = `fetch(process.env.TOKEN_URL, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: process.env.AUTHORIZATION }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: process.env.REFRESH_TOKEN }) }); setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['-e', script], {
    env: {
      ...process.env,
      TOKEN_URL: `${provider.issuer}/token`,
      AUTHORIZATION: basic(SECRET),
      REFRESH_TOKEN: refreshToken,
    },
    stdio: 'ignore',
  });
}

async function harness(hook) {
  const response = await fetch(`${provider.issuer}/__harness/${hook}`, { method: 'POST' });
  assert.equal(response.status, 200);
  return response.json();
}

async function waitFor(condition, timeout = 5000) {
  const until = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`still not so after ${timeout} ms: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function pick(object, ...keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key]]));
}
