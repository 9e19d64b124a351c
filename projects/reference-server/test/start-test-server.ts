import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';

import pg from 'pg';

import { buildServer } from '../src/build-server.js';
import type { DatabaseTimeouts } from '../src/database-unavailable-error.js';
import { openDatabase } from '../src/open-database.js';
import { createPgEngine } from '../src/pg-engine.js';
import { createPgliteEngine } from '../src/pglite-engine.js';
import { type ServerConfig, readConfig } from '../src/read-config.js';
import type { Repository } from '../src/repository.js';
import { seedDemoData } from '../src/seed-demo-data.js';
import type { SqlEngine } from '../src/sql-engine.js';
import { createSqlRepository } from '../src/sql-repository.js';
import { type OpenApiResponseCheck, createOpenApiResponseCheck } from './openapi-response-check.js';

// Shared by the suites: a real server on 127.0.0.1 and an ephemeral port, over a fresh database
// (PGlite in memory, or, when DATABASE_URL is set, a fresh schema of that PostgreSQL, dropped at
// the end), seeded with the demo data. Requests go over real HTTP with the global fetch, which this
// module wraps so that every answer from a server of the suite is checked against that server's own
// OpenAPI document (an answer it does not describe makes the fetch, and so the test, fail).

/** The document's check of each running test server, by origin. */
const responseChecks = new Map<string, OpenApiResponseCheck>();
/** For servers the suite did not build here (the real process of main.test.ts): the default configuration's. */
let defaultResponseCheck: Promise<OpenApiResponseCheck> | null = null;
const unchecked = globalThis.fetch;

globalThis.fetch = async (input, init) => {
  const request = input instanceof Request ? input : null;
  const url = request?.url ?? String(input);
  const method = init?.method ?? request?.method ?? 'GET';
  const response = await unchecked(input, init);
  const { origin, hostname } = new URL(url);
  const check = responseChecks.get(origin) ?? (hostname === '127.0.0.1' ? await defaultCheck() : null);
  if (check) await check(method, url, response);
  return response;
};

function defaultCheck(): Promise<OpenApiResponseCheck> {
  defaultResponseCheck ??= (async () => {
    const app = await buildServer({ config: readConfig({ LOG_LEVEL: 'silent' }), repository: {} as Repository });
    await app.ready();
    const check = createOpenApiResponseCheck(app.swagger());
    await app.close();
    return check;
  })();
  return defaultResponseCheck;
}

/** The signing key of every test server, so tests can forge tokens with the right and a wrong key. */
export const TEST_JWT_SECRET = 'test-secret-of-the-reference-server-suite-0123456789';

const DEFAULT_TIMEOUTS: DatabaseTimeouts = (() => {
  const config = readConfig({});
  return { connectTimeoutMs: config.databaseConnectTimeoutMs, statementTimeoutMs: config.databaseStatementTimeoutMs };
})();

/** A fresh database with the schema and the demo data; see {@link createTestDatabase}. */
export interface TestDatabase {
  readonly engine: SqlEngine;
  readonly repository: Repository;
  /** Which engine, for test names and logs. */
  readonly description: string;
  /**
   * Another connection to the same database, as a second instance would open it: its own pool on
   * PostgreSQL; on PGlite, which lives in this one process, the same engine. Its `close` closes only
   * what it opened.
   */
  connectAgain(): Promise<TestDatabase>;
  /** Closes it (and drops the PostgreSQL schema). */
  close(): Promise<void>;
}

/** A running server; see {@link startTestServer}. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly config: ServerConfig;
  readonly database: TestDatabase;
  /** Moves the server's clock (tokens, refresh expiry) forward. */
  advanceClock(ms: number): void;
  /** Stops the server, then the database unless it was shared. */
  close(): Promise<void>;
}

/**
 * Creates a fresh, migrated, seeded database on the engine the environment selects, its operations
 * bounded by `timeouts` (the server's defaults unless told otherwise).
 */
export async function createTestDatabase(timeouts: DatabaseTimeouts = DEFAULT_TIMEOUTS): Promise<TestDatabase> {
  const databaseUrl = process.env['DATABASE_URL'] || null;
  if (databaseUrl === null) {
    const engine = await openDatabase({ databaseUrl: null, pgliteDataDir: null, timeouts });
    const database = await seeded(engine, async () => engine.close());
    const again = (): TestDatabase => ({
      ...database,
      connectAgain: async () => again(),
      close: async () => undefined,
    });
    return { ...database, connectAgain: async () => again() };
  }
  const schema = `reference_server_test_${randomBytes(6).toString('hex')}`;
  await admin(databaseUrl, `CREATE SCHEMA ${schema}`);
  const engine = await openDatabase({ databaseUrl, pgliteDataDir: null, schema, timeouts });
  const connectAgain = async (): Promise<TestDatabase> => {
    const pool = createPgEngine(databaseUrl, { schema, timeouts });
    const repository = createSqlRepository(pool);
    return { engine: pool, repository, description: pool.description, connectAgain, close: () => pool.close() };
  };
  const database = await seeded(engine, async () => {
    await engine.close();
    await admin(databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
  });
  return { ...database, connectAgain };
}

/**
 * An engine on a fresh, empty database (no schema, no data): a PGlite in memory, or a fresh schema
 * of the DATABASE_URL PostgreSQL, dropped by `close`.
 */
export async function createBareEngine(): Promise<{ engine: SqlEngine; close(): Promise<void> }> {
  const databaseUrl = process.env['DATABASE_URL'] || null;
  if (databaseUrl === null) {
    const engine = await createPgliteEngine(null);
    return { engine, close: () => engine.close() };
  }
  const schema = `reference_server_test_${randomBytes(6).toString('hex')}`;
  await admin(databaseUrl, `CREATE SCHEMA ${schema}`);
  const engine = createPgEngine(databaseUrl, { schema });
  return {
    engine,
    close: async () => {
      await engine.close();
      await admin(databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
    },
  };
}

/**
 * Starts a server on 127.0.0.1:0 with the test configuration (quiet, a fixed key, rate limits and
 * sign-in delays high enough for a suite) plus `env`, over `database` or a fresh one.
 */
export async function startTestServer(
  options: {
    readonly env?: Readonly<Record<string, string>>;
    readonly database?: TestDatabase;
    /** Wraps the repository, e.g. to make it fail. */
    readonly wrapRepository?: (repository: Repository) => Repository;
    /** The clock `advanceClock` moves forward from; default `Date.now`. Several servers may share one. */
    readonly now?: () => number;
  } = {},
): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const config = readConfig({
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    LOGIN_RATE_LIMIT_MAX: '10000',
    REFRESH_RATE_LIMIT_MAX: '10000',
    LOGOUT_RATE_LIMIT_MAX: '10000',
    // Suites share accounts and sign in with wrong passwords on purpose; the delays have their own suite.
    LOGIN_ACCOUNT_FREE_ATTEMPTS: '10000',
    ...options.env,
    PORT: '0',
    HOST: '127.0.0.1',
  });
  let offset = 0;
  const repository = options.wrapRepository ? options.wrapRepository(database.repository) : database.repository;
  const clock = options.now ?? Date.now;
  const app = await buildServer({ config, repository, now: () => clock() + offset });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  responseChecks.set(new URL(url).origin, createOpenApiResponseCheck(app.swagger()));
  return {
    url,
    config,
    database,
    advanceClock: (ms) => {
      offset += ms;
    },
    close: async () => {
      responseChecks.delete(new URL(url).origin);
      await app.close();
      if (!options.database) await database.close();
    },
  };
}

/** The tokens of a login: the access token, and the refresh token from the cookie. */
export interface Session {
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** Signs in (as the demo admin unless told otherwise) and returns the tokens. */
export async function login(server: TestServer, username = 'ada', password = 'lovelace'): Promise<Session> {
  const response = await post(server, '/auth/login', { username, password });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  const { accessToken } = (await response.json()) as { accessToken: string };
  const refreshToken = readCookie(response, '__Secure-refreshToken');
  if (!refreshToken) throw new Error('login set no refresh cookie');
  return { accessToken, refreshToken };
}

/** `POST` with a JSON body (or none), and extra headers. */
export function post(
  server: TestServer,
  path: string,
  body?: unknown,
  headers: Readonly<Record<string, string>> = {},
): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** `POST /auth/refresh` with the refresh token as the browser sends it: in the Cookie header. */
export function refreshWithCookie(server: TestServer, refreshToken: string): Promise<Response> {
  return fetch(`${server.url}/auth/refresh`, {
    method: 'POST',
    headers: { Cookie: `__Secure-refreshToken=${refreshToken}` },
  });
}

/** A request with `Authorization: Bearer <token>` and, for writes, a JSON body. */
export function api(
  server: TestServer,
  method: string,
  path: string,
  token: string,
  options: { readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(server.url + path, {
    method,
    headers: { ...headers, ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

/** The value of a cookie set by the response (`''` when it is being cleared), or `null`. */
export function readCookie(response: Response, name: string): string | null {
  const header = setCookieHeader(response, name);
  return header === null ? null : decodeURIComponent(header.slice(name.length + 1).split(';')[0] ?? '');
}

/** The whole `Set-Cookie` header that sets this cookie, or `null`. */
export function setCookieHeader(response: Response, name: string): string | null {
  return response.headers.getSetCookie().find((header) => header.startsWith(`${name}=`)) ?? null;
}

/** The uniform error body, checked to be exactly that shape; throws otherwise. */
export async function readError(
  response: Response,
): Promise<{ code: string; message: string; details?: { target: string; message: string }[] }> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (!type.startsWith('application/json')) throw new Error(`error answer is ${type}: ${text}`);
  const body = JSON.parse(text) as { error?: Record<string, unknown> };
  const error = body.error;
  const keys = Object.keys(body);
  if (keys.length !== 1 || typeof error !== 'object' || error === null) throw new Error(`not the error body: ${text}`);
  if (typeof error['code'] !== 'string' || typeof error['message'] !== 'string') {
    throw new Error(`error body without code or message: ${text}`);
  }
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'details'].includes(key));
  if (extra.length > 0) throw new Error(`error body with extra fields ${extra.join(', ')}: ${text}`);
  if (/\bat .+:\d+:\d+/.test(text) || /node_modules|\/src\/|\.ts\b/.test(text)) {
    throw new Error(`error body leaks internals: ${text}`);
  }
  return error as { code: string; message: string; details?: { target: string; message: string }[] };
}

/**
 * Sends bytes as they are over a TCP socket and returns the raw answer (for requests fetch refuses
 * to make: malformed HTTP, invalid header bytes).
 */
export function rawRequest(server: TestServer, bytes: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Longer than any timeout the suite configures, far shorter than the test runner's patience. */
const RAW_CONNECTION_LIMIT_MS = 20_000;

/**
 * Opens a TCP connection, writes `bytes` without ending the sending side, and resolves with
 * everything the server sent once it closes the connection (for slow and idle clients).
 */
export function rawConnection(server: TestServer, bytes: string | Buffer = ''): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      if (bytes.length > 0) socket.write(bytes);
    });
    // A server that never closes fails the test instead of hanging it.
    const limit = setTimeout(() => {
      reject(new Error(`the server kept the connection open for ${RAW_CONNECTION_LIMIT_MS} ms`));
      socket.destroy();
    }, RAW_CONNECTION_LIMIT_MS);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer is the server closing on a client that still had bytes to send.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(limit);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** The status, headers (lower-case names) and body of a raw HTTP/1.1 answer. */
export function parseRawAnswer(answer: string): { status: number; headers: Map<string, string>; body: string } {
  const [head = '', ...rest] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

async function seeded(engine: SqlEngine, close: () => Promise<void>): Promise<Omit<TestDatabase, 'connectAgain'>> {
  const repository = createSqlRepository(engine);
  await seedDemoData(repository);
  return { engine, repository, description: engine.description, close };
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
