import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { decodeJwt } from 'jose';

import { createFamilyId, createRefreshTokens } from '../src/refresh-tokens.js';

import {
  TEST_JWT_SECRET,
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

const DAY_MS = 24 * 60 * 60 * 1000;
/** Made with the servers' key, for a family no database has. */
const unknownSessionToken = createRefreshTokens(new TextEncoder().encode(TEST_JWT_SECRET)).derive({
  familyId: createFamilyId(),
  generation: 0,
});

describe('POST /auth/refresh', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers 200 { accessToken } with a new access token and a rotated cookie', async () => {
    const session = await login(server);

    const response = await refreshWithCookie(server, session.refreshToken);

    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['accessToken']);
    const accessToken = body['accessToken'] as string;
    assert.notEqual(accessToken, session.accessToken);
    assert.equal(decodeJwt(accessToken).sub, 'ada');
    assert.equal(decodeJwt(accessToken)['sid'], decodeJwt(session.accessToken)['sid']);
    const rotated = readCookie(response, '__Secure-refreshToken');
    assert.match(rotated ?? '', /^[A-Za-z0-9_-]{70}$/);
    assert.notEqual(rotated, session.refreshToken);
    const attributes = (setCookieHeader(response, '__Secure-refreshToken') ?? '').split('; ').slice(1).sort();
    assert.deepEqual(
      attributes.filter((attribute) => !attribute.startsWith('Max-Age=')),
      ['HttpOnly', 'Path=/auth/refresh', 'SameSite=Strict', 'Secure'],
    );
    assert.equal((await api(server, 'GET', '/api/v1/users/1', accessToken)).status, 200);
  });

  it('chains: each rotated token refreshes once more', async () => {
    let { refreshToken } = await login(server);
    for (let step = 0; step < 5; step++) {
      const response = await refreshWithCookie(server, refreshToken);
      assert.equal(response.status, 200, `step ${step}`);
      refreshToken = readCookie(response, '__Secure-refreshToken') ?? '';
    }
  });

  it('reads the token from the body ({ refreshToken }) and answers the rotated one in the body, not in a cookie', async () => {
    const session = await login(server);

    const response = await post(server, '/auth/refresh', { refreshToken: session.refreshToken });

    assert.equal(response.status, 200);
    const body = (await response.json()) as { accessToken: string; refreshToken: string };
    assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'refreshToken']);
    assert.match(body.refreshToken, /^[A-Za-z0-9_-]{70}$/);
    assert.notEqual(body.refreshToken, session.refreshToken);
    assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
    assert.equal((await post(server, '/auth/refresh', { refreshToken: body.refreshToken })).status, 200);
  });

  it('prefers the body over the cookie when both come', async () => {
    const first = await login(server);
    const second = await login(server);

    const response = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `__Secure-refreshToken=${first.refreshToken}` },
      body: JSON.stringify({ refreshToken: second.refreshToken }),
    });

    assert.equal(response.status, 200);
    assert.equal((await refreshWithCookie(server, first.refreshToken)).status, 200);
  });

  it('treats Content-Type: application/json with no body as the cookie flow', async () => {
    const session = await login(server);
    const response = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `__Secure-refreshToken=${session.refreshToken}` },
    });
    assert.equal(response.status, 200);
  });

  it('keeps the session end: rotation six days in gives a cookie with one day left', async () => {
    const clocked = await startTestServer({ database: server.database });
    try {
      const session = await login(clocked);
      clocked.advanceClock(6 * DAY_MS);

      const response = await refreshWithCookie(clocked, session.refreshToken);

      assert.equal(response.status, 200);
      const maxAge = Number(/Max-Age=(\d+)/.exec(setCookieHeader(response, '__Secure-refreshToken') ?? '')?.[1]);
      assert.ok(maxAge > DAY_MS / 1000 - 60 && maxAge <= DAY_MS / 1000, `Max-Age=${maxAge}`);
    } finally {
      await clocked.close();
    }
  });

  it('refuses an expired refresh token with 401 and clears the cookie', async () => {
    const clocked = await startTestServer({ database: server.database });
    try {
      const session = await login(clocked);
      clocked.advanceClock(7 * DAY_MS + 1000);

      const response = await refreshWithCookie(clocked, session.refreshToken);

      assert.equal(response.status, 401);
      assert.equal((await readError(response)).code, 'InvalidRefreshToken');
      assert.match(
        setCookieHeader(response, '__Secure-refreshToken') ?? '',
        /^__Secure-refreshToken=; Max-Age=0; Path=\/auth\/refresh;/,
      );
    } finally {
      await clocked.close();
    }
  });

  for (const [name, cookie] of [
    ['a genuine token of an unknown session', unknownSessionToken],
    ['a random token', randomBytes(52).toString('base64url')],
    ['a malformed token', 'not-a-token'],
    ['a 2 kB token', 'A'.repeat(2048)],
    ['SQL in the cookie', "x' OR '1'='1"],
  ] as const) {
    it(`refuses ${name} with 401 InvalidRefreshToken and clears the cookie`, async () => {
      const response = await fetch(`${server.url}/auth/refresh`, {
        method: 'POST',
        headers: { Cookie: `__Secure-refreshToken=${encodeURIComponent(cookie)}` },
      });
      assert.equal(response.status, 401);
      assert.equal((await readError(response)).code, 'InvalidRefreshToken');
      assert.equal(readCookie(response, '__Secure-refreshToken'), '');
    });
  }

  it('refuses a call without any token with 401', async () => {
    const response = await fetch(`${server.url}/auth/refresh`, { method: 'POST' });
    assert.equal(response.status, 401);
    assert.deepEqual(await readError(response), {
      code: 'InvalidRefreshToken',
      message: 'There is no refresh token; please sign in.',
    });
  });

  for (const [name, body, target] of [
    ['a number', { refreshToken: 42 }, 'refreshToken'],
    ['an unknown field', { refreshToken: 'x', extra: 1 }, 'extra'],
    ['an array', ['x'], ''],
  ] as const) {
    it(`refuses a body with ${name} with 400`, async () => {
      const response = await post(server, '/auth/refresh', body);
      assert.equal(response.status, 400);
      const error = await readError(response);
      assert.equal(error.code, 'InvalidRequest');
      assert.ok(
        error.details?.some((detail) => detail.target === target),
        JSON.stringify(error),
      );
    });
  }

  it('answers other methods with 405', async () => {
    const response = await fetch(`${server.url}/auth/refresh`);
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
  });
});

describe('POST /auth/logout', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('revokes the family named by the access token, answers 204 and clears the cookie', async () => {
    const session = await login(server);

    const response = await post(server, '/auth/logout', undefined, { Authorization: `Bearer ${session.accessToken}` });

    assert.equal(response.status, 204);
    assert.equal(await response.text(), '');
    assert.match(
      setCookieHeader(response, '__Secure-refreshToken') ?? '',
      /^__Secure-refreshToken=; Max-Age=0; Path=\/auth\/refresh; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict$/,
    );
    assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 401);
  });

  it('revokes the family when the access token has expired meanwhile', async () => {
    const clocked = await startTestServer({ database: server.database });
    try {
      const session = await login(clocked);
      clocked.advanceClock(60 * 60 * 1000);

      await post(clocked, '/auth/logout', undefined, { Authorization: `Bearer ${session.accessToken}` });

      assert.equal((await refreshWithCookie(clocked, session.refreshToken)).status, 401);
    } finally {
      await clocked.close();
    }
  });

  it('revokes the family of a { refreshToken } body (the body flow), a rotated one included', async () => {
    const session = await login(server);
    const rotated = readCookie(await refreshWithCookie(server, session.refreshToken), '__Secure-refreshToken') ?? '';

    const response = await post(server, '/auth/logout', { refreshToken: rotated });

    assert.equal(response.status, 204);
    assert.equal((await refreshWithCookie(server, rotated)).status, 401);
  });

  it('revokes the family of a cookie sent along (a client whose cookie reaches /auth/logout)', async () => {
    const session = await login(server);
    await fetch(`${server.url}/auth/logout`, {
      method: 'POST',
      headers: { Cookie: `__Secure-refreshToken=${session.refreshToken}` },
    });
    assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 401);
  });

  it('ends only its own session', async () => {
    const leaving = await login(server);
    const staying = await login(server);

    await post(server, '/auth/logout', undefined, { Authorization: `Bearer ${leaving.accessToken}` });

    assert.equal((await refreshWithCookie(server, staying.refreshToken)).status, 200);
  });

  it('ignores a forged access token: 204, but no session is revoked by it', async () => {
    const session = await login(server);
    const [header, , signature] = session.accessToken.split('.');
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(session.accessToken), sid: 'someone-else' })).toString(
      'base64url',
    );

    const response = await post(server, '/auth/logout', undefined, {
      Authorization: `Bearer ${header}.${payload}.${signature}`,
    });

    assert.equal(response.status, 204);
    assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);
  });

  it('answers 204 without any token (signing out never fails)', async () => {
    const response = await fetch(`${server.url}/auth/logout`, { method: 'POST' });
    assert.equal(response.status, 204);
  });

  it('refuses a body that is not { refreshToken } with 400', async () => {
    const response = await post(server, '/auth/logout', { everyone: true });
    assert.equal(response.status, 400);
    assert.equal((await readError(response)).code, 'InvalidRequest');
  });
});
