import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { MAX_ERROR_DETAILS } from '../src/error-handling.js';
import {
  type TestDatabase,
  type TestServer,
  createTestDatabase,
  login,
  parseRawAnswer,
  post,
  rawConnection,
  readError,
  refreshWithCookie,
  startTestServer,
} from './start-test-server.js';

// Slow and hostile clients, and a database that stops answering, cost the server a bounded time and
// a bounded answer, each with the uniform error body.

/** Long enough for a healthy query on a busy test machine, short enough to wait for. */
const STATEMENT_TIMEOUT_MS = 400;
/** Generous: the point is that the answer comes at all, instead of when the database wakes up. */
const WELL_WITHIN_MS = 5_000;

describe('timeouts and limits', () => {
  describe('a database that does not answer', () => {
    let database: TestDatabase;
    let server: TestServer;
    before(async () => {
      database = await createTestDatabase({ connectTimeoutMs: 2_000, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
      server = await startTestServer({ database });
    });
    after(async () => {
      await server.close();
      await database.close();
    });

    it(
      'gets a 503 ServiceUnavailable with Retry-After within the timeout, and the server recovers',
      { timeout: 30_000 },
      async () => {
        const { accessToken, refreshToken } = await login(server);
        const read = () =>
          fetch(`${server.url}/api/v1/users/1`, {
            headers: { Authorization: `Bearer ${accessToken}` },
            signal: AbortSignal.timeout(30_000),
          });
        // Another session holds every table the requests need: on PostgreSQL their statements wait for
        // the lock until the statement timeout; PGlite's one connection is busy until the wait deadline.
        let thaw!: () => void;
        let frozen!: () => void;
        const isFrozen = new Promise<void>((resolve) => (frozen = resolve));
        const holder = database.engine.transaction(async (tx) => {
          await tx.query('LOCK TABLE users, refresh_token_families IN ACCESS EXCLUSIVE MODE');
          frozen();
          await new Promise<void>((resolve) => (thaw = resolve));
        });
        await isFrozen;
        try {
          const started = performance.now();
          const [response, refresh] = await Promise.all([read(), refreshWithCookie(server, refreshToken)]);
          const elapsed = performance.now() - started;

          for (const answer of [response, refresh]) {
            assert.equal(answer.status, 503);
            assert.equal(answer.headers.get('retry-after'), '2');
            assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
            assert.deepEqual(await readError(answer), {
              code: 'ServiceUnavailable',
              message: 'The database is not answering; please try again shortly.',
            });
          }
          assert.ok(elapsed < WELL_WITHIN_MS, `answered after ${Math.round(elapsed)} ms`);
          // A server failure is no sign-out: the cookie stays.
          assert.deepEqual(refresh.headers.getSetCookie(), []);
        } finally {
          thaw();
          await holder;
        }

        const recovered = await read();
        assert.equal(recovered.status, 200);
        assert.equal(((await recovered.json()) as { id: number }).id, 1);
        assert.equal((await refreshWithCookie(server, refreshToken)).status, 200);
      },
    );
  });

  describe('slow clients', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        env: { HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600', CONNECTION_TIMEOUT_MS: '2000' },
      });
    });
    after(() => server.close());

    it('cuts off a body that never finishes with 408 and the uniform body', async () => {
      const started = performance.now();
      const answer = parseRawAnswer(
        await rawConnection(
          server,
          'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100\r\n\r\n{"username": "ad',
        ),
      );
      assert.equal(answer.status, 408);
      assert.deepEqual(JSON.parse(answer.body), {
        error: { code: 'Timeout', message: 'The request took too long to arrive.' },
      });
      assert.equal(answer.headers.get('x-frame-options'), 'DENY');
      assert.ok(performance.now() - started < WELL_WITHIN_MS);
    });

    it('cuts off headers that never finish with 408 and the uniform body', async () => {
      const answer = parseRawAnswer(await rawConnection(server, 'GET /api/v1/users HTTP/1.1\r\nHost: local'));
      assert.equal(answer.status, 408);
      assert.equal(JSON.parse(answer.body).error.code, 'Timeout');
    });

    it('closes a connection that never sends anything', async () => {
      const started = performance.now();
      await rawConnection(server);
      assert.ok(performance.now() - started < WELL_WITHIN_MS);
    });
  });

  describe('open connections per address', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ env: { MAX_CONNECTIONS_PER_ADDRESS: '2', HEADERS_TIMEOUT_MS: '500' } });
    });
    after(() => server.close());

    it('answers one connection over the cap with 429 and the uniform body, and serves again once they close', async () => {
      // Two connections that send half a request, held until the header timeout closes them.
      const held = [1, 2].map(() => rawConnection(server, 'GET / HTTP/1.1\r\n'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = parseRawAnswer(await rawConnection(server, 'GET /api/v1/users HTTP/1.1\r\nHost: x\r\n\r\n'));
      assert.equal(third.status, 429);
      assert.equal(third.headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
      assert.deepEqual(JSON.parse(third.body), {
        error: { code: 'TooManyRequests', message: 'Too many open connections from one address (at most 2).' },
      });

      for (const answer of await Promise.all(held)) assert.equal(parseRawAnswer(answer).status, 408);
      const again = await fetch(`${server.url}/api/v1/users`, { headers: { Connection: 'close' } });
      assert.equal(again.status, 401);
    });
  });

  describe('validation details', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.close());

    it(`answers a flood of 1,900 unknown keys with at most ${MAX_ERROR_DETAILS} details`, async () => {
      const body = Object.fromEntries(Array.from({ length: 1_900 }, (_, i) => [i.toString(36), 0]));
      const sent = JSON.stringify(body).length;
      const response = await post(server, '/auth/refresh', body);
      const text = await response.clone().text();

      assert.equal(response.status, 400);
      const error = await readError(response);
      assert.equal(error.code, 'InvalidRequest');
      assert.equal(error.details?.length, MAX_ERROR_DETAILS);
      assert.deepEqual(error.details?.[0], { target: '0', message: 'is not a known field' });
      assert.match(error.message, /; and 1890 more problems\.$/);
      assert.ok(text.length < 2_048 && text.length < sent / 5, `${text.length} bytes answer ${sent} bytes`);
    });

    it('still lists every problem of an ordinary body', async () => {
      const response = await post(server, '/auth/login', { user: 'ada', pass: 'x' });
      assert.deepEqual((await readError(response)).details, [
        { target: 'username', message: 'is required' },
        { target: 'password', message: 'is required' },
        { target: 'user', message: 'is not a known field' },
        { target: 'pass', message: 'is not a known field' },
      ]);
    });
  });

  describe('rate limits of refresh and logout', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        env: {
          REFRESH_RATE_LIMIT_MAX: '3',
          REFRESH_RATE_LIMIT_WINDOW_SECONDS: '60',
          LOGOUT_RATE_LIMIT_MAX: '2',
          LOGOUT_RATE_LIMIT_WINDOW_SECONDS: '60',
        },
      });
    });
    after(() => server.close());

    for (const [path, limit] of [
      ['/auth/refresh', 3],
      ['/auth/logout', 2],
    ] as const) {
      it(`answers ${path} past ${limit} a minute from one address with 429 and the uniform body`, async () => {
        for (let i = 0; i < limit; i++) assert.notEqual((await post(server, path)).status, 429);
        const response = await post(server, path);
        assert.equal(response.status, 429);
        assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        const error = await readError(response);
        assert.equal(error.code, 'TooManyRequests');
        assert.match(error.message, /^Too many attempts; try again in .+\.$/);
      });
    }

    it('counts each endpoint apart: sign-in still works', async () => {
      assert.equal((await post(server, '/auth/login', { username: 'ada', password: 'lovelace' })).status, 200);
    });
  });
});
