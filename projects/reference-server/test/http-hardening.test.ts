import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { type TestServer, login, post, rawRequest, readError, startTestServer } from './start-test-server.js';

const APP = 'https://app.example.com';

describe('HTTP hardening', () => {
  let server: TestServer;
  let withCors: TestServer;
  let admin: string;
  before(async () => {
    server = await startTestServer();
    withCors = await startTestServer({
      database: server.database,
      env: { CORS_ORIGINS: `${APP}, http://localhost:4200` },
    });
    admin = (await login(server)).accessToken;
  });
  after(async () => {
    await withCors.close();
    await server.close();
  });

  describe('security headers', () => {
    for (const [name, request] of [
      [
        'a success',
        (s: TestServer) => fetch(`${s.url}/api/v1/users/1`, { headers: { Authorization: `Bearer ${admin}` } }),
      ],
      ['a login', (s: TestServer) => post(s, '/auth/login', { username: 'ada', password: 'lovelace' })],
      ['a 401', (s: TestServer) => fetch(`${s.url}/api/v1/users`)],
      ['a 404', (s: TestServer) => fetch(`${s.url}/nowhere`)],
    ] as const) {
      it(`are on ${name}`, async () => {
        const response = await request(server);
        const headers = response.headers;
        assert.equal(headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
        assert.equal(headers.get('x-content-type-options'), 'nosniff');
        assert.equal(headers.get('x-frame-options'), 'DENY');
        assert.equal(headers.get('referrer-policy'), 'no-referrer');
        assert.match(headers.get('strict-transport-security') ?? '', /^max-age=\d+/);
        assert.equal(headers.get('cross-origin-resource-policy'), 'same-origin');
        assert.equal(headers.get('cache-control'), 'no-store');
        assert.equal(headers.get('x-powered-by'), null);
        assert.equal(headers.get('access-control-allow-origin'), null);
      });
    }
  });

  describe('CORS', () => {
    it('answers a preflight from an allowed origin, credentials included', async () => {
      const response = await fetch(`${withCors.url}/api/v1/users/1`, {
        method: 'OPTIONS',
        headers: {
          Origin: APP,
          'Access-Control-Request-Method': 'PATCH',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), APP);
      assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
      assert.match(response.headers.get('access-control-allow-methods') ?? '', /\bPATCH\b/);
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /\bAuthorization\b/);
      assert.match(response.headers.get('vary') ?? '', /Origin/);
    });

    it('lets an allowed origin read answers, Location and WWW-Authenticate included', async () => {
      const response = await fetch(`${withCors.url}/api/v1/users`, { headers: { Origin: 'http://localhost:4200' } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('access-control-allow-origin'), 'http://localhost:4200');
      assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /Location/);
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    });

    for (const origin of [
      'https://evil.example',
      'https://app.example.com.evil.example',
      'null',
      'http://app.example.com',
    ]) {
      it(`gives ${origin} no CORS headers, and its preflight the error body`, async () => {
        const simple = await fetch(`${withCors.url}/api/v1/users`, { headers: { Origin: origin } });
        const preflight = await fetch(`${withCors.url}/api/v1/users`, {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
        });
        for (const response of [simple, preflight]) {
          assert.equal(response.headers.get('access-control-allow-origin'), null);
          assert.equal(response.headers.get('access-control-allow-credentials'), null);
        }
        assert.equal(preflight.status, 405);
        assert.equal((await readError(preflight)).code, 'MethodNotAllowed');
      });
    }

    it('allows no origin at all when CORS_ORIGINS is unset', async () => {
      const response = await fetch(`${server.url}/api/v1/users/1`, {
        method: 'OPTIONS',
        headers: { Origin: APP, 'Access-Control-Request-Method': 'GET' },
      });
      assert.equal(response.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('uniform errors', () => {
    for (const [method, path, status] of [
      ['GET', '/', 404],
      ['GET', '/api', 404],
      ['GET', '/auth', 404],
      ['POST', '/auth/signup', 404],
      ['GET', '/api/v1/users/1/friends', 404],
      ['OPTIONS', '/api/v1/users', 405],
    ] as const) {
      it(`answers ${method} ${path} with ${status} and the error body`, async () => {
        const response = await fetch(server.url + path, { method });
        assert.equal(response.status, status);
        await readError(response);
      });
    }
  });

  describe('methods fetch cannot send', () => {
    it('answers TRACE with 405 and the error body', async () => {
      const { host } = new URL(server.url);
      const answer = await rawRequest(
        server,
        `TRACE /api/v1/users HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 405 /);
      assert.match(answer, /\r\n\r\n\{"error":\{"code":"MethodNotAllowed",/);
    });

    it('answers a made-up method with 400 and the error body', async () => {
      const { host } = new URL(server.url);
      const answer = await rawRequest(server, `BREW /api/v1/users HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.match(answer, /\r\n\r\n\{"error":\{"code":"BadRequest",/);
    });
  });

  describe('when something fails inside', () => {
    let failing: TestServer;
    before(async () => {
      failing = await startTestServer({
        database: server.database,
        wrapRepository: (repository) => ({
          ...repository,
          listUsers: () => Promise.reject(new Error('connection to 10.0.0.7:5432 refused at /srv/app/src/db.ts:42:7')),
          getUser: () => Promise.reject('a thrown string'),
          rotateRefreshToken: () => {
            throw new TypeError('Cannot read properties of undefined (reading "token_hash")');
          },
        }),
      });
    });
    after(() => failing.close());

    for (const [name, request] of [
      [
        'a rejected query',
        (s: TestServer, token: string) =>
          fetch(`${s.url}/api/v1/users`, { headers: { Authorization: `Bearer ${token}` } }),
      ],
      [
        'a thrown non-error',
        (s: TestServer, token: string) =>
          fetch(`${s.url}/api/v1/users/1`, { headers: { Authorization: `Bearer ${token}` } }),
      ],
    ] as const) {
      it(`answers ${name} with 500 ServerError and says nothing about it`, async () => {
        const { accessToken } = await login(failing);
        const response = await request(failing, accessToken);

        assert.equal(response.status, 500);
        const text = await response.clone().text();
        assert.deepEqual(await readError(response), {
          code: 'ServerError',
          message: 'Something went wrong on the server.',
        });
        assert.doesNotMatch(text, /10\.0\.0\.7|db\.ts|thrown string|stack/);
      });
    }

    it('leaves the refresh cookie alone when the refresh fails inside (a 500 is no logout)', async () => {
      const { refreshToken } = await login(failing);
      const response = await fetch(`${failing.url}/auth/refresh`, {
        method: 'POST',
        headers: { Cookie: `__Secure-refreshToken=${refreshToken}` },
      });
      assert.equal(response.status, 500);
      assert.equal((await readError(response)).code, 'ServerError');
      assert.deepEqual(response.headers.getSetCookie(), []);
    });
  });
});
