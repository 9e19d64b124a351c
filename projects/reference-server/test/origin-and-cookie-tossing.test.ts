import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  type TestServer,
  api,
  login,
  post,
  readCookie,
  readError,
  refreshWithCookie,
  setCookieHeader,
  startTestServer,
} from './start-test-server.js';

// Issue 24, points 5 and 6: the endpoints the refresh cookie authorizes refuse pages of other
// origins, and a cookie of the same name planted ahead of the server's own (cookie tossing) neither
// hides it nor gets it cleared.

const SECURE_NAME = '__Secure-refreshToken';
const ALLOWED = 'https://app.example.com';

function refreshWith(server: TestServer, refreshToken: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${server.url}/auth/refresh`, {
    method: 'POST',
    headers: { Cookie: `${SECURE_NAME}=${refreshToken}`, ...headers },
  });
}

describe('the Origin check of /auth/refresh and /auth/logout', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { CORS_ORIGINS: ALLOWED } });
  });
  after(() => server.close());

  it('refuses a refresh from another origin with 403 ForbiddenOrigin, and the token still works afterwards', async () => {
    const session = await login(server);

    const response = await refreshWith(server, session.refreshToken, { Origin: 'https://evil.example' });

    assert.equal(response.status, 403);
    assert.equal((await readError(response)).code, 'ForbiddenOrigin');
    assert.deepEqual(response.headers.getSetCookie(), []);
    const again = await refreshWithCookie(server, session.refreshToken);
    assert.equal(again.status, 200);
    // Not a reissue within the reuse interval: the refused request did not rotate it.
    assert.notEqual(readCookie(again, SECURE_NAME), session.refreshToken);
  });

  it('refuses Origin: null', async () => {
    const session = await login(server);
    const response = await refreshWith(server, session.refreshToken, { Origin: 'null' });
    assert.equal(response.status, 403);
    assert.equal((await readError(response)).code, 'ForbiddenOrigin');
  });

  it('refuses a logout from another origin with 403 ForbiddenOrigin, and ends nothing', async () => {
    const session = await login(server);

    const response = await post(
      server,
      '/auth/logout',
      { refreshToken: session.refreshToken },
      { Origin: 'https://evil.example', Authorization: `Bearer ${session.accessToken}` },
    );

    assert.equal(response.status, 403);
    assert.equal((await readError(response)).code, 'ForbiddenOrigin');
    assert.deepEqual(response.headers.getSetCookie(), []);
    assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);
  });

  it('refuses Sec-Fetch-Site: cross-site even with an allowed or no Origin', async () => {
    const session = await login(server);
    const variants: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'cross-site', Origin: ALLOWED },
    ];
    for (const headers of variants) {
      const response = await refreshWith(server, session.refreshToken, headers);
      assert.equal(response.status, 403, JSON.stringify(headers));
      assert.equal((await readError(response)).code, 'ForbiddenOrigin');
    }
    const logout = await post(server, '/auth/logout', undefined, {
      'Sec-Fetch-Site': 'cross-site',
      Authorization: `Bearer ${session.accessToken}`,
    });
    assert.equal(logout.status, 403);
    assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);
  });

  it('accepts the server’s own origin, an allowed origin and no Origin at all (non-browser clients)', async () => {
    let { refreshToken } = await login(server);
    const own = new URL(server.url).origin;
    for (const headers of [
      { Origin: own, 'Sec-Fetch-Site': 'same-origin' },
      { Origin: ALLOWED, 'Sec-Fetch-Site': 'same-site' },
      { 'Sec-Fetch-Site': 'none' },
      {},
    ] as Record<string, string>[]) {
      const response = await refreshWith(server, refreshToken, headers);
      assert.equal(response.status, 200, JSON.stringify(headers));
      refreshToken = readCookie(response, SECURE_NAME) ?? '';
    }
    const logout = await post(server, '/auth/logout', { refreshToken }, { Origin: own });
    assert.equal(logout.status, 204);
    assert.equal((await refreshWithCookie(server, refreshToken)).status, 401);
  });

  it('refuses same-site with an Origin not allowed', async () => {
    const session = await login(server);
    const response = await refreshWith(server, session.refreshToken, {
      Origin: 'https://other.example.com',
      'Sec-Fetch-Site': 'same-site',
    });
    assert.equal(response.status, 403);
  });

  it('leaves login and the API alone', async () => {
    const response = await post(
      server,
      '/auth/login',
      { username: 'ada', password: 'lovelace' },
      { Origin: 'https://evil.example' },
    );
    assert.equal(response.status, 200);
    const { accessToken } = (await response.json()) as { accessToken: string };
    const users = await api(server, 'GET', '/api/v1/users', accessToken, {
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(users.status, 200);
  });
});

describe('the refresh cookie against cookie tossing', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('is __Secure-refreshToken, Secure, host-only, Path=/auth/refresh when the cookie is Secure', async () => {
    const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const header = setCookieHeader(response, SECURE_NAME) ?? '';
    assert.match(header, /^__Secure-refreshToken=[A-Za-z0-9_-]{70}; /);
    const attributes = header.split('; ').slice(1);
    assert.ok(attributes.includes('Secure'));
    assert.ok(attributes.includes('Path=/auth/refresh'));
    assert.ok(!attributes.some((attribute) => /^Domain=/i.test(attribute)));
    assert.equal(setCookieHeader(response, 'refreshToken'), null);
  });

  it('ignores a plain refreshToken cookie when the cookie is Secure (anyone may set that name)', async () => {
    const session = await login(server);
    const response = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `refreshToken=${session.refreshToken}` },
    });
    assert.equal(response.status, 401);
  });

  it('keeps the session when a junk cookie of the same name comes first, and clears nothing on a refusal', async () => {
    const session = await login(server);

    const response = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `${SECURE_NAME}=planted; ${SECURE_NAME}=${session.refreshToken}` },
    });

    assert.equal(response.status, 200);
    const rotated = readCookie(response, SECURE_NAME) ?? '';
    assert.match(rotated, /^[A-Za-z0-9_-]{70}$/);
    assert.notEqual(rotated, session.refreshToken);
    // Two junk cookies: refused, but the server's own (which it cannot know it has) is not cleared.
    const junk = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `${SECURE_NAME}=planted; ${SECURE_NAME}=also-planted` },
    });
    assert.equal(junk.status, 401);
    assert.equal(setCookieHeader(junk, SECURE_NAME), null);
    assert.equal((await refreshWithCookie(server, rotated)).status, 200);
  });

  it('refuses, without clearing or ending either, genuine cookies of two sessions (the planter’s own among them)', async () => {
    const victim = await login(server, 'ada', 'lovelace');
    const planter = await login(server, 'alan', 'turing');

    const response = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `${SECURE_NAME}=${planter.refreshToken}; ${SECURE_NAME}=${victim.refreshToken}` },
    });

    assert.equal(response.status, 401);
    assert.equal((await readError(response)).code, 'InvalidRefreshToken');
    assert.equal(setCookieHeader(response, SECURE_NAME), null);
    assert.equal((await refreshWithCookie(server, victim.refreshToken)).status, 200);
    assert.equal((await refreshWithCookie(server, planter.refreshToken)).status, 200);
  });

  it('still clears a single refused cookie', async () => {
    const response = await refreshWithCookie(server, 'junk');
    assert.equal(response.status, 401);
    assert.equal(readCookie(response, SECURE_NAME), '');
  });
});

describe('the refresh cookie with COOKIE_SECURE=false', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { COOKIE_SECURE: 'false' } });
  });
  after(() => server.close());

  it('is the plain refreshToken, without Secure (browsers refuse prefixed cookies over plain HTTP)', async () => {
    const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const header = setCookieHeader(response, 'refreshToken') ?? '';
    assert.match(header, /^refreshToken=[A-Za-z0-9_-]{70}; /);
    assert.ok(!header.split('; ').includes('Secure'));
    const refreshToken = readCookie(response, 'refreshToken') ?? '';
    const refreshed = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `refreshToken=junk; refreshToken=${refreshToken}` },
    });
    assert.equal(refreshed.status, 200);
  });
});
