import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type Socket, connect, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';

import pg from 'pg';

import { MAX_ERROR_DETAILS } from '#contract';

import { openDatabase } from '../src/open-database.js';
import { seedDemoData } from '../src/seed-demo-data.js';
import { createSqlRepository } from '../src/sql-repository.js';
import {
  type TestDatabase,
  type TestServer,
  createTestDatabase,
  login,
  parseRawAnswer,
  post,
  rawConnection,
  rawRequest,
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

  // PostgreSQL only: a server that stops answering altogether (frozen, or the network to it gone),
  // which no server-side timeout can catch. PGlite runs in this process and cannot freeze apart.
  const databaseUrl = process.env['DATABASE_URL'] || null;
  if (databaseUrl !== null) {
    describe('a PostgreSQL that stops answering altogether', () => {
      let proxy: PausableProxy;
      let server: TestServer;
      let dropSchema: () => Promise<void>;
      before(async () => {
        const target = new URL(databaseUrl);
        proxy = await startPausableProxy(target.hostname, Number(target.port || 5432));
        const throughProxy = new URL(databaseUrl);
        throughProxy.hostname = '127.0.0.1';
        throughProxy.port = String(proxy.port);
        const schema = `reference_server_test_${randomBytes(6).toString('hex')}`;
        await admin(databaseUrl, `CREATE SCHEMA ${schema}`);
        dropSchema = () => admin(databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
        const engine = await openDatabase({
          databaseUrl: throughProxy.href,
          pgliteDataDir: null,
          schema,
          timeouts: { connectTimeoutMs: 500, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
        });
        const repository = createSqlRepository(engine);
        await seedDemoData(repository);
        const database: TestDatabase = {
          engine,
          repository,
          description: engine.description,
          connectAgain: () => Promise.reject(new Error('not needed here')),
          close: () => engine.close(),
        };
        server = await startTestServer({ database });
      });
      after(async () => {
        proxy.resume();
        await server.close();
        await server.database.close();
        await proxy.close();
        await dropSchema();
      });

      it('gets a 503 once the client-side timeout passes, and the server recovers', { timeout: 30_000 }, async () => {
        const { accessToken } = await login(server);
        const read = () =>
          fetch(`${server.url}/api/v1/users/1`, {
            headers: { Authorization: `Bearer ${accessToken}` },
            signal: AbortSignal.timeout(20_000),
          });
        proxy.pause();
        const started = performance.now();
        const frozen = await Promise.all([read(), read(), read()]);
        const elapsed = performance.now() - started;
        for (const response of frozen) {
          assert.equal(response.status, 503);
          assert.equal((await readError(response)).code, 'ServiceUnavailable');
        }
        assert.ok(elapsed < WELL_WITHIN_MS, `answered after ${Math.round(elapsed)} ms`);

        proxy.resume();
        const recovered = await read();
        assert.equal(recovered.status, 200);
      });
    });
  }

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

    it('leaves a trusted proxy, which carries many clients, uncapped', async () => {
      const behindProxy = await startTestServer({
        database: server.database,
        env: { MAX_CONNECTIONS_PER_ADDRESS: '1', HEADERS_TIMEOUT_MS: '500', TRUST_PROXY: '127.0.0.1' },
      });
      try {
        const held = rawConnection(behindProxy, 'GET / HTTP/1.1\r\n');
        await new Promise((resolve) => setTimeout(resolve, 100));
        const second = parseRawAnswer(
          await rawRequest(behindProxy, 'GET /api/v1/users HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        );
        assert.equal(second.status, 401);
        assert.equal(parseRawAnswer(await held).status, 408);
      } finally {
        await behindProxy.close();
      }
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

/** A TCP relay to PostgreSQL that can stop relaying, as a frozen server or a dead network looks. */
interface PausableProxy {
  readonly port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

async function startPausableProxy(host: string, port: number): Promise<PausableProxy> {
  const sockets = new Set<Socket>();
  let paused = false;
  const relay = createServer((client) => {
    const upstream = connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      if (paused) from.pause();
      // Written by hand rather than piped: a piped stream resumes itself when its destination drains.
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('error', () => undefined);
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  return {
    port: address.port,
    pause: () => {
      paused = true;
      for (const socket of sockets) socket.pause();
    },
    resume: () => {
      paused = false;
      for (const socket of sockets) socket.resume();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}

async function admin(databaseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
