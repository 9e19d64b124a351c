import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { decodeJwt, decodeProtectedHeader } from 'jose';

import {
  type TestServer,
  api,
  post,
  readCookie,
  readError,
  setCookieHeader,
  startTestServer,
} from './start-test-server.js';

describe('POST /auth/login', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('answers 200 { accessToken } with a JWT carrying sub, exp, iat, jti (HS256)', async () => {
    const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });

    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['accessToken']);
    const token = body['accessToken'] as string;
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    assert.equal(claims.sub, 'ada');
    assert.equal(claims['role'], 'admin');
    assert.equal(typeof claims.jti, 'string');
    assert.equal(typeof claims['sid'], 'string');
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 900);
    assert.ok(Math.abs((claims.iat ?? 0) - Date.now() / 1000) < 5);
  });

  it('gives every token its own jti', async () => {
    const first = await loginToken(server);
    const second = await loginToken(server);
    assert.notEqual(decodeJwt(first).jti, decodeJwt(second).jti);
  });

  it('sets the refresh cookie HttpOnly; Secure; SameSite=Strict; Path=/auth/refresh with the refresh lifetime', async () => {
    const response = await post(server, '/auth/login', { username: 'alan', password: 'turing' });

    const header = setCookieHeader(response, '__Secure-refreshToken') ?? '';
    const attributes = header
      .split(';')
      .slice(1)
      .map((part) => part.trim());
    assert.deepEqual(attributes.sort(), [
      'HttpOnly',
      'Max-Age=604800',
      'Path=/auth/refresh',
      'SameSite=Strict',
      'Secure',
    ]);
    assert.match(readCookie(response, '__Secure-refreshToken') ?? '', /^[A-Za-z0-9_-]{70}$/);
  });

  it('stores no refresh token in any form: the session is its family id and generation', async () => {
    const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    const token = readCookie(response, '__Secure-refreshToken') ?? '';
    const familyId = decodeJwt(((await response.json()) as { accessToken: string }).accessToken)['sid'];

    const rows = await server.database.engine.query<{ id: string; generation: number }>(
      'SELECT id, generation FROM refresh_token_families WHERE id = $1',
      [familyId],
    );
    assert.deepEqual(rows, [{ id: familyId, generation: 0 }]);
    // Neither the token, nor its MAC (the part only the key can make), nor a hash of it.
    const mac = Buffer.from(token, 'base64url').subarray(20);
    const dump = JSON.stringify(await server.database.engine.query('SELECT * FROM refresh_token_families'));
    for (const form of [token, mac.toString('hex'), mac.toString('base64url'), sha256(token)]) {
      assert.ok(!dump.includes(form), form);
    }
  });

  it('issues a token the API accepts', async () => {
    const response = await api(server, 'GET', '/api/v1/users/1', await loginToken(server));
    assert.equal(response.status, 200);
  });

  it('answers a wrong password and an unknown user identically: 401 InvalidCredentials, no cookie', async () => {
    const wrong = await post(server, '/auth/login', { username: 'ada', password: 'wrong' });
    const unknown = await post(server, '/auth/login', { username: 'nobody', password: 'wrong' });

    for (const response of [wrong, unknown]) {
      assert.equal(response.status, 401);
      assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
    }
    assert.deepEqual(await readError(wrong), await readError(unknown));
    assert.deepEqual(await readError(await post(server, '/auth/login', { username: 'ada', password: 'x' })), {
      code: 'InvalidCredentials',
      message: 'The username or the password is wrong.',
    });
    const varying = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-length']);
    const names = (response: Response) => [...response.headers.keys()].filter((name) => !varying.has(name)).sort();
    assert.deepEqual(names(wrong), names(unknown));
  });

  it('takes about as long for an unknown user as for a wrong password (the same scrypt work)', async () => {
    const timings = { wrong: [] as number[], unknown: [] as number[] };
    for (let round = 0; round < 6; round++) {
      for (const kind of ['wrong', 'unknown'] as const) {
        const started = performance.now();
        const response = await post(server, '/auth/login', {
          username: kind === 'wrong' ? 'ada' : `nobody-${round}`,
          password: 'not-the-password',
        });
        timings[kind].push(performance.now() - started);
        assert.equal(response.status, 401);
      }
    }
    const wrong = median(timings.wrong);
    const unknown = median(timings.unknown);
    console.log(`login timing: wrong password ${wrong.toFixed(1)} ms, unknown user ${unknown.toFixed(1)} ms (medians)`);
    assert.ok(unknown > wrong * 0.5 && unknown < wrong * 2, `wrong ${wrong} ms vs unknown ${unknown} ms`);
  });

  for (const [name, body, target, message] of [
    ['a missing password', { username: 'ada' }, 'password', 'is required'],
    ['a missing username', { password: 'lovelace' }, 'username', 'is required'],
    ['a number as password', { username: 'ada', password: 42 }, 'password', 'must be a string'],
    ['an object as username', { username: { $ne: '' }, password: 'x' }, 'username', 'must be a string'],
    ['an unknown field', { username: 'ada', password: 'lovelace', admin: true }, 'admin', 'is not a known field'],
    ['an array', [{ username: 'ada', password: 'lovelace' }], '', 'The body must be a JSON object.'],
    ['a string', 'ada:lovelace', '', 'The body must be a JSON object.'],
    ['null', null, '', 'The body must be a JSON object.'],
    [
      'a 10 kB password',
      { username: 'ada', password: 'x'.repeat(10_000) },
      'password',
      'must be at most 1024 characters long',
    ],
  ] as const) {
    it(`refuses ${name} with 400 InvalidRequest naming the field`, async () => {
      const response = await post(server, '/auth/login', body);

      assert.equal(response.status, 400);
      const error = await readError(response);
      assert.equal(error.code, 'InvalidRequest');
      assert.ok(
        error.details?.some((detail) => detail.target === target && detail.message === message),
        JSON.stringify(error),
      );
      assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
    });
  }

  it('refuses an empty body and bad JSON with 400', async () => {
    const empty = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(empty.status, 400);
    assert.equal((await readError(empty)).code, 'InvalidRequest');

    const broken = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"username": "ada", "password": ',
    });
    assert.equal(broken.status, 400);
    assert.deepEqual(await readError(broken), {
      code: 'InvalidRequest',
      message: 'The body is not valid JSON.',
      details: [{ target: '', message: 'is not valid JSON' }],
    });
  });

  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    it(`refuses ${type} with 415 (no form post from another site can sign anybody in)`, async () => {
      const response = await fetch(`${server.url}/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: 'username=ada&password=lovelace',
      });
      assert.equal(response.status, 415);
      assert.equal((await readError(response)).code, 'UnsupportedMediaType');
    });
  }

  it('refuses a username PostgreSQL could not store (NUL, lone surrogate) as unknown: 401, never 500', async () => {
    for (const username of ['ada\u0000', '\ud800ada', 'ada\u0000; DROP TABLE accounts;--']) {
      const response = await post(server, '/auth/login', { username, password: 'lovelace' });
      assert.equal(response.status, 401, username);
      assert.equal((await readError(response)).code, 'InvalidCredentials');
    }
    assert.equal((await post(server, '/auth/login', { username: 'ada', password: 'lovelace' })).status, 200);
  });

  it('answers a password with a control character or a lone surrogate as a wrong one: 401, same scrypt work', async () => {
    // Node's scrypt ignores trailing NULs, and UTF-8 turns any lone surrogate into U+FFFD.
    for (const password of ['lovelace\u0000', 'lovelace\u0000\u0000', 'lovelace\u0007', 'lovelace\ud800']) {
      const response = await post(server, '/auth/login', { username: 'ada', password });
      assert.equal(response.status, 401, JSON.stringify(password));
      assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
      assert.deepEqual(await readError(response), {
        code: 'InvalidCredentials',
        message: 'The username or the password is wrong.',
      });
    }
    assert.equal((await post(server, '/auth/login', { username: 'ada', password: 'lovelace' })).status, 200);
  });

  it('answers other methods with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await fetch(`${server.url}/auth/login`, { method });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal((await readError(response)).code, 'MethodNotAllowed');
    }
  });

  describe('with COOKIE_SECURE=false (local plain HTTP)', () => {
    let insecure: TestServer;
    before(async () => {
      insecure = await startTestServer({ database: server.database, env: { COOKIE_SECURE: 'false' } });
    });
    after(() => insecure.close());

    it('leaves out Secure and the __Secure- prefix of the name, and nothing else', async () => {
      const response = await post(insecure, '/auth/login', { username: 'ada', password: 'lovelace' });
      assert.equal(setCookieHeader(response, '__Secure-refreshToken'), null);
      const attributes = (setCookieHeader(response, 'refreshToken') ?? '').split('; ').slice(1).sort();
      assert.deepEqual(attributes, ['HttpOnly', 'Max-Age=604800', 'Path=/auth/refresh', 'SameSite=Strict']);
    });
  });

  describe('with REFRESH_TOKEN_IN_BODY=true (the body flow)', () => {
    let bodyFlow: TestServer;
    before(async () => {
      bodyFlow = await startTestServer({ database: server.database, env: { REFRESH_TOKEN_IN_BODY: 'true' } });
    });
    after(() => bodyFlow.close());

    it('also returns the refresh token in the body, the same one as the cookie', async () => {
      const response = await post(bodyFlow, '/auth/login', { username: 'ada', password: 'lovelace' });
      const body = (await response.json()) as { accessToken: string; refreshToken: string };
      assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'refreshToken']);
      assert.equal(body.refreshToken, readCookie(response, '__Secure-refreshToken'));
    });
  });

  describe('rate limiting', () => {
    let limited: TestServer;
    before(async () => {
      // A database of its own: the counts live in the database, where the other servers of this suite
      // have used up a limit of 3 long ago.
      limited = await startTestServer({ env: { LOGIN_RATE_LIMIT_MAX: '3' } });
    });
    after(() => limited.close());

    it('answers the attempt after LOGIN_RATE_LIMIT_MAX with 429 TooManyRequests and Retry-After', async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        statuses.push((await post(limited, '/auth/login', { username: 'ada', password: 'wrong' })).status);
      }
      const blocked = await post(limited, '/auth/login', { username: 'ada', password: 'lovelace' });

      assert.deepEqual(statuses, [401, 401, 401]);
      assert.equal(blocked.status, 429);
      assert.equal((await readError(blocked)).code, 'TooManyRequests');
      assert.match(blocked.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal(setCookieHeader(blocked, '__Secure-refreshToken'), null);
    });

    it('limits only the login: the API still answers', async () => {
      const response = await fetch(`${limited.url}/api/v1/users`);
      assert.equal(response.status, 401);
    });
  });
});

async function loginToken(server: TestServer): Promise<string> {
  const response = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
  return ((await response.json()) as { accessToken: string }).accessToken;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
