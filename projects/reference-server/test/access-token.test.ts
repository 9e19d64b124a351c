import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { SignJWT, decodeJwt } from 'jose';

import { TEST_JWT_SECRET, type TestServer, api, login, readError, startTestServer } from './start-test-server.js';

const INVALID_TOKEN = 'Bearer error="invalid_token"';

describe('access tokens on the API', () => {
  let server: TestServer;
  let adminToken: string;
  before(async () => {
    server = await startTestServer();
    adminToken = (await login(server)).accessToken;
  });
  after(() => server.close());

  it('accepts a token from login', async () => {
    assert.equal((await api(server, 'GET', '/api/v1/users', adminToken)).status, 200);
  });

  it('answers a call without a token with 401 Unauthorized and WWW-Authenticate: Bearer', async () => {
    const response = await fetch(`${server.url}/api/v1/users`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await readError(response)).code, 'Unauthorized');
  });

  it('refuses an expired token: 401 TokenExpired, WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const clocked = await startTestServer({ database: server.database });
    try {
      const { accessToken } = await login(clocked);
      // Accepted once first, so the verifier holds its verdict in its cache: expiry must still count.
      assert.equal((await api(clocked, 'GET', '/api/v1/users/1', accessToken)).status, 200);
      clocked.advanceClock(900 * 1000);

      const response = await api(clocked, 'GET', '/api/v1/users/1', accessToken);

      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), INVALID_TOKEN);
      assert.deepEqual(await readError(response), { code: 'TokenExpired', message: 'The access token has expired.' });
    } finally {
      await clocked.close();
    }
  });

  it('still accepts a token one second before it expires', async () => {
    const clocked = await startTestServer({ database: server.database });
    try {
      const { accessToken } = await login(clocked);
      const { exp = 0 } = decodeJwt(accessToken);
      clocked.advanceClock(exp * 1000 - Date.now() - 1500);
      assert.equal((await api(clocked, 'GET', '/api/v1/users/1', accessToken)).status, 200);
    } finally {
      await clocked.close();
    }
  });

  const forgeries: [string, () => Promise<string>][] = [
    [
      'a tampered payload (viewer made admin, signature kept)',
      async () => {
        const { accessToken } = await login(server, 'alan', 'turing');
        const [header, payload, signature] = accessToken.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
        return `${header}.${base64url({ ...claims, role: 'admin' })}.${signature}`;
      },
    ],
    ['alg: none (no signature)', async () => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(validClaims())}.`],
    [
      'alg: none with the original signature',
      async () => {
        const signature = adminToken.split('.')[2];
        return `${base64url({ alg: 'none', typ: 'JWT' })}.${adminToken.split('.')[1]}.${signature}`;
      },
    ],
    ['a wrong key', () => sign(validClaims(), 'another-secret-of-at-least-thirty-two-bytes!!')],
    ['another algorithm with the right key (HS512)', () => sign(validClaims(), TEST_JWT_SECRET, 'HS512')],
    [
      'a missing jti',
      () => {
        const claims: Record<string, unknown> = validClaims();
        delete claims['jti'];
        return sign(claims);
      },
    ],
    ['a missing sub', () => sign({ ...validClaims(), sub: undefined })],
    ['a missing exp', () => sign({ ...validClaims(), exp: undefined })],
    ['a missing iat', () => sign({ ...validClaims(), iat: undefined })],
    ['a missing iss', () => sign({ ...validClaims(), iss: undefined })],
    ['a missing aud', () => sign({ ...validClaims(), aud: undefined })],
    ['a missing sid', () => sign({ ...validClaims(), sid: undefined })],
    ['an exp that is a string', () => sign({ ...validClaims(), exp: String(nowSeconds() + 600) })],
    ['an nbf in the future', () => sign({ ...validClaims(), nbf: nowSeconds() + 60 })],
    ['another issuer', () => sign({ ...validClaims(), iss: 'someone-else' })],
    ['another audience', () => sign({ ...validClaims(), aud: 'another-api' })],
    ['an unknown role', () => sign({ ...validClaims(), role: 'root' })],
    ['an iat ten million seconds in the future', () => sign({ ...validClaims(), iat: nowSeconds() + 10_000_000 })],
    ['an iat 31 s in the future (past the 30 s leeway)', () => sign({ ...validClaims(), iat: nowSeconds() + 31 })],
    ['garbage', async () => 'not.a.jwt'],
    ['a 10 kB token', async () => 'a'.repeat(10_000)],
  ];
  for (const [name, forge] of forgeries) {
    it(`refuses ${name}: 401 InvalidToken, WWW-Authenticate: Bearer error="invalid_token"`, async () => {
      const token = await forge();

      const response = await api(server, 'GET', '/api/v1/users/1', token);

      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), INVALID_TOKEN);
      assert.deepEqual(await readError(response), { code: 'InvalidToken', message: 'The access token is not valid.' });
    });
  }

  it('accepts a token this test signs like the server does (so the forgeries above fail for their flaw alone)', async () => {
    assert.equal((await api(server, 'GET', '/api/v1/users/1', await sign(validClaims()))).status, 200);
  });

  it('accepts an iat up to 30 s in the future (clock skew between instances)', async () => {
    const token = await sign({ ...validClaims(), iat: nowSeconds() + 25 });
    assert.equal((await api(server, 'GET', '/api/v1/users/1', token)).status, 200);
  });

  for (const header of ['Basic YWRhOmxvdmVsYWNl', 'Bearer', 'Bearer a b', 'Token abc']) {
    it(`refuses Authorization: ${header} with 401 InvalidToken`, async () => {
      const response = await fetch(`${server.url}/api/v1/users`, { headers: { Authorization: header } });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('www-authenticate'), INVALID_TOKEN);
      assert.equal((await readError(response)).code, 'InvalidToken');
    });
  }

  it('accepts the scheme in any case (bearer, BEARER)', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const response = await fetch(`${server.url}/api/v1/users/1`, {
        headers: { Authorization: `${scheme} ${adminToken}` },
      });
      assert.equal(response.status, 200, scheme);
    }
  });

  it('does not take a refresh token for an access token', async () => {
    const { refreshToken } = await login(server);
    assert.equal((await api(server, 'GET', '/api/v1/users/1', refreshToken)).status, 401);
  });
});

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function validClaims(): Record<string, unknown> {
  const now = nowSeconds();
  return {
    sub: 'ada',
    role: 'admin',
    sid: 'some-family',
    jti: 'some-id',
    iat: now,
    exp: now + 600,
    iss: 'ngx-token-refresh-reference-server',
    aud: 'ngx-token-refresh-api',
  };
}

function sign(claims: Record<string, unknown>, secret = TEST_JWT_SECRET, alg = 'HS256'): Promise<string> {
  const defined = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
  return new SignJWT(defined).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
