import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import {
  type BrowseResult,
  type CookieJar,
  type TestApp,
  harnessModule,
  newBrowser,
  startTestApp,
} from './bff-test-app.spec-helper';

// GET <basePath>/callback against oidc-provider: the end of a sign-in, walked by the harness's
// scriptless browser, which keeps cookies as Chromium does (SameSite across a cross-site redirect chain).

describe('GET /bff/callback', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('sets the session cookie: __Host-, HttpOnly, Secure, SameSite=Strict, Path=/, no Domain, for the absolute lifetime', async () => {
    const { walk, callback } = await untilCallback(app);
    const response = await walk.cookies.fetch(callback);
    assert.equal(response.status, 200);
    const [session, login] = response.headers.getSetCookie();
    assert.match(
      session ?? '',
      /^__Host-bff-session=[\w-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=43200$/,
    );
    assert.equal(login, '__Host-bff-login=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0');
    assert.deepEqual(
      walk.cookies.list(app.baseUrl).map(({ name }) => name),
      ['__Host-bff-session'],
    );
  });

  it("keys the session by the SHA-256 of the cookie's value, never the value itself", async () => {
    const { walk, callback } = await untilCallback(app);
    await walk.cookies.fetch(callback);
    const value = sessionCookieOf(walk);
    const record = app.store.created.at(-1);
    assert.equal(record?.key, createHash('sha256').update(value).digest('base64url'));
    assert.ok(!JSON.stringify(record).includes(value));
  });

  it('answers a page that moves on by itself, not a redirect, so the first page after sign-in has the cookie', async () => {
    const { walk, callback } = await untilCallback(app, '/orders?page=2&sort="new"');
    const response = await walk.cookies.fetch(callback);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('location'), null);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('content-security-policy'), "default-src 'none'");
    const page = await response.text();
    assert.match(page, /<meta http-equiv="refresh" content="0;url=\/orders\?page=2&amp;sort=&quot;new&quot;">/);

    // The whole walk as a browser: the page after the provider's cross-site redirect to the callback.
    const pages = app.pageRequests.length;
    const { url } = await (await harnessModule()).browseSignIn(`${app.baseUrl}/bff/login?returnUrl=%2Fhome`);
    assert.equal(url.href, `${app.baseUrl}/home`);
    const home = app.pageRequests.slice(pages).find(({ path }) => path === '/home');
    assert.match(home?.cookie ?? '', /__Host-bff-session=[\w-]{43}/);
  });

  it('goes on to returnUrl without the bffError of an earlier failed sign-in, the rest of it as it was', async () => {
    const { walk, callback } = await untilCallback(
      app,
      '/orders?bffError=SignInFailed&page=2&bffErrorReason=access_denied#top',
    );
    const page = await (await walk.cookies.fetch(callback)).text();
    assert.match(page, /<meta http-equiv="refresh" content="0;url=\/orders\?page=2#top">/);

    const { url } = await (
      await harnessModule()
    ).browseSignIn(`${app.baseUrl}/bff/login?returnUrl=${encodeURIComponent('/home?bffError=InvalidRequest')}`);
    assert.equal(url.href, `${app.baseUrl}/home`);
  });

  it('makes a new session id at every sign-in, even when the browser sends the one it holds (session fixation)', async () => {
    const first = await app.signIn('ada');
    const planted = sessionCookieOf(first);
    // Browsers hold a Strict cookie back from the provider's redirect; a request of this site sends it.
    const { walk, callback } = await untilCallback(app, '/account', first.cookies);
    const response = await walk.cookies.fetch(callback);
    assert.equal(response.status, 200);
    assert.notEqual(sessionCookieOf(walk), planted);
    assert.notEqual(app.store.created.at(-1)?.key, first.session.key);
  });

  it('sends a browser back to returnUrl with bffError=InvalidRequest when the state is not its own, and spends no code', async () => {
    const { walk, callback } = await untilCallback(app);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'x'.repeat(43));
    const grants = app.provider.stats().codeGrants;
    const sessions = app.store.created.length;
    const response = await walk.cookies.fetch(forged);
    assertBackToApp(response, '/account?bffError=InvalidRequest');
    assert.equal(await response.text(), '');
    assert.deepEqual(response.headers.getSetCookie(), [
      '__Host-bff-login=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0',
    ]);
    assert.deepEqual(walk.cookies.list(app.baseUrl), []);
    assert.equal(app.provider.stats().codeGrants, grants);
    assert.equal(app.store.created.length, sessions);
  });

  it('sends a browser that started no sign-in (a code planted by another site) to / with bffError=InvalidRequest', async () => {
    const { callback } = await untilCallback(app);
    const grants = app.provider.stats().codeGrants;
    const response = await (await newBrowser()).fetch(callback);
    assertBackToApp(response, '/?bffError=InvalidRequest');
    assert.equal(app.provider.stats().codeGrants, grants);
  });

  it('answers the same callback only once: a replay goes to / with bffError=InvalidRequest', async () => {
    const { walk, callback } = await untilCallback(app);
    assert.equal((await walk.cookies.fetch(callback)).status, 200);
    assertBackToApp(await walk.cookies.fetch(callback), '/?bffError=InvalidRequest');
  });

  it("passes the provider's OAuth error on as bffErrorReason (the user pressed Cancel), nothing else of its answer", async () => {
    const { walk, callback } = await untilCallback(app);
    const refused = providerAnswer(app, callback, {
      error: 'access_denied',
      error_description: '<b>Call 555-0100 to unlock your account</b>',
      error_uri: 'https://evil.example/help',
    });
    const response = await walk.cookies.fetch(refused);
    assertBackToApp(response, '/account?bffError=SignInFailed&bffErrorReason=access_denied');
    assert.deepEqual(response.headers.getSetCookie(), [
      '__Host-bff-login=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0',
    ]);
    // The app's page, reached as a browser goes on: the cookie of the failed sign-in is gone.
    const pages = app.pageRequests.length;
    const page = await walk.cookies.fetch(new URL(response.headers.get('location') ?? '', app.baseUrl));
    assert.equal(page.status, 200);
    assert.deepEqual(app.pageRequests.slice(pages), [{ path: '/account', cookie: '' }]);
  });

  it("leaves bffErrorReason out when the provider's error is no OAuth error code", async () => {
    for (const error of ['<script>alert(1)</script>', 'access denied', 'x'.repeat(65), 'é']) {
      const { walk, callback } = await untilCallback(app);
      const response = await walk.cookies.fetch(providerAnswer(app, callback, { error }));
      assertBackToApp(response, '/account?bffError=SignInFailed');
    }
  });

  it('answers a callback whose query is garbage or huge with InvalidRequest, and echoes none of it', async () => {
    const garbage = [
      `?${'%zz&=&&==;<>"'.repeat(700)}`,
      `?code=${'A'.repeat(12_000)}`,
      '?state=a&state=b&error=access_denied',
      '?error=access_denied',
    ];
    for (const query of garbage) {
      const { walk } = await untilCallback(app);
      const response = await walk.cookies.fetch(`${app.baseUrl}/bff/callback${query}`);
      assertBackToApp(response, '/account?bffError=InvalidRequest');
    }
  });

  it("keeps returnUrl's own query and fragment as they are, and adds bffError before the fragment", async () => {
    const { walk, callback } = await untilCallback(app, '/orders/7?page=2&q=a%20b+c&flag&sort="new"#line-3?x=1');
    const response = await walk.cookies.fetch(providerAnswer(app, callback, { error: 'login_required' }));
    assertBackToApp(
      response,
      '/orders/7?page=2&q=a%20b+c&flag&sort="new"&bffError=SignInFailed&bffErrorReason=login_required#line-3?x=1',
    );
  });

  it('replaces a bffError and bffErrorReason that returnUrl has already (a second failed sign-in), however they are encoded', async () => {
    const { walk, callback } = await untilCallback(
      app,
      '/orders?bffError=SignInFailed&page=2&bffErrorReason=access_denied&bff%45rror=x#top',
    );
    const forged = new URL(callback);
    forged.searchParams.set('state', 'x'.repeat(43));
    assertBackToApp(await walk.cookies.fetch(forged), '/orders?page=2&bffError=InvalidRequest#top');
  });

  it('percent-encodes the characters of returnUrl that a header cannot carry', async () => {
    const { walk, callback } = await untilCallback(app, '/café/ü?q=日本 語#ß');
    const response = await walk.cookies.fetch(providerAnswer(app, callback, { error: 'access_denied' }));
    assertBackToApp(
      response,
      '/caf%C3%A9/%C3%BC?q=%E6%97%A5%E6%9C%AC%20%E8%AA%9E&bffError=SignInFailed&bffErrorReason=access_denied#%C3%9F',
    );
  });
});

describe('GET /bff/callback without a refresh token', () => {
  it('signs in, warns once, and ends the session with its access token', async (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    // Without prompt=consent, oidc-provider drops offline_access: no refresh token.
    const app = await startTestApp({ bff: { authorizationParams: {} } });
    try {
      const { cookies, session } = await app.signIn('ada');
      await app.signIn('bob');
      assert.equal(session.refreshToken, null);
      assert.equal(app.warnings.filter((warning) => /no refresh token/.test(warning)).length, 1);
      assert.match(
        app.warnings[0] ?? '',
        /^ngx-token-refresh\/bff: the provider issued no refresh token at sign-in.*offline_access/,
      );
      assert.equal((await app.call(cookies, '/bff/session')).status, 200);
      context.mock.timers.setTime(session.accessTokenExpiresAt);
      const ended = await app.call(cookies, '/bff/session');
      assert.equal(ended.status, 401);
      assert.equal(((await ended.json()) as { error: { code: string } }).error.code, 'SessionEnded');
    } finally {
      await app.close();
    }
  });

  it('ends the session when an API refuses its access token before then', async () => {
    const app = await startTestApp({ bff: { authorizationParams: {} } });
    try {
      const { cookies } = await app.signIn('ada');
      app.provider.expireAccessTokens();
      const ended = await app.call(cookies, '/api/echo');
      assert.equal(ended.status, 401);
      assert.equal(((await ended.json()) as { error: { code: string } }).error.code, 'SessionEnded');
      assert.equal(app.provider.stats().refreshGrants, 0);
    } finally {
      await app.close();
    }
  });
});

describe('GET /bff/callback with client_secret_post', () => {
  it('signs in with the secret in the body', async () => {
    const app = await startTestApp({ bff: { tokenEndpointAuthMethod: 'client_secret_post' } });
    try {
      const { cookies } = await app.signIn('ada');
      assert.equal((await app.call(cookies, '/api/echo')).status, 200);
    } finally {
      await app.close();
    }
  });
});

/** A sign-in walked up to the provider's redirect to the callback, which is not requested. */
async function untilCallback(
  app: TestApp,
  returnUrl = '/account',
  cookies?: CookieJar,
): Promise<{ walk: BrowseResult; callback: URL }> {
  const walk = await (
    await harnessModule()
  ).browseSignIn(`${app.baseUrl}/bff/login?returnUrl=${encodeURIComponent(returnUrl)}`, {
    stopAt: (url) => url.pathname === '/bff/callback',
    ...(cookies ? { cookies } : {}),
  });
  assert.ok(walk.stopped, `the walk ended at ${walk.url.href} (${walk.status})`);
  return { walk, callback: walk.url };
}

/**
 * Checks that `response` sends the browser back to the app: 303 to `location` (a path of this site),
 * never cached, and no `Referer` with the callback's URL (it holds the code) to the page.
 */
function assertBackToApp(response: Response, location: string): void {
  assert.equal(response.status, 303);
  assert.equal(response.headers.get('location'), location);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
}

/** The callback's URL as the provider would send it with `fields`, for the sign-in of `callback`. */
function providerAnswer(app: TestApp, callback: URL, fields: Record<string, string>): URL {
  const answer = new URL(`${app.baseUrl}/bff/callback`);
  answer.search = new URLSearchParams({
    ...fields,
    state: callback.searchParams.get('state') ?? '',
    iss: app.provider.issuer,
  }).toString();
  return answer;
}

function sessionCookieOf(walk: Pick<BrowseResult, 'cookies'>): string {
  const cookie = walk.cookies.list('http://127.0.0.1/').find(({ name }) => name === '__Host-bff-session');
  assert.ok(cookie, 'a session cookie');
  return cookie.value;
}
