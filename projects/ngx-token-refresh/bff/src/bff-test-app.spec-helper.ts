import assert from 'node:assert/strict';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

import {
  type Bff,
  type BffOptions,
  type BffSession,
  type BffSessionStore,
  createBff,
  createBffMemoryStore,
  createBffPostgresStore,
} from './public-api';
import { type TestDatabase, testDatabases } from './test-pool.spec-helper';

// The world the bff specs run in, over real HTTP on loopback: the app's server (the BFF's routes, and
// a page for everything else), a real OpenID Provider (the e2e harness's oidc-provider with its
// confidential `bff` client, in this process) and an API that checks the tokens it gets at the
// provider's userinfo endpoint. The app is on 127.0.0.1 and the provider on localhost: two sites, as
// in production, so the cookies' SameSite rules play as in a browser.

/** The harness's module (plain JavaScript: e2e/oidc/oidc-provider-server.mjs), as far as the specs use it. */
interface HarnessModule {
  startOidcProvider(options: HarnessOptions): Promise<Harness>;
  browseSignIn(
    startUrl: string | URL,
    options?: { login?: string; cookies?: CookieJar; stopAt?: (url: URL) => boolean },
  ): Promise<BrowseResult>;
  browseSignOut(startUrl: string | URL, options?: { cookies?: CookieJar }): Promise<BrowseResult>;
  CookieJar: new () => CookieJar;
}

/** Options of the harness's provider (see e2e/oidc/README.md). */
export interface HarnessOptions {
  readonly port?: number;
  readonly accessTokenTtl?: number;
  readonly dpop?: boolean;
  readonly storeFile?: string;
  readonly bffClient?: {
    readonly secret: string;
    readonly redirectUris?: readonly string[];
    readonly postLogoutRedirectUris?: readonly string[];
  };
}

/** What the harness counted (its `stats()`). */
export interface HarnessStats {
  readonly codeGrants: number;
  readonly refreshGrants: number;
  readonly refreshFailures: Readonly<Record<string, number>>;
  readonly reuseDetected: number;
  readonly revoked: number;
  readonly userinfo: { readonly ok: number; readonly unauthorized: number };
  readonly dpopNonceChallenges: number;
  readonly heldRefreshes: {
    readonly held: number;
    readonly released: number;
    readonly dropped: number;
    readonly waiting: number;
    readonly waitingClientGone: number;
  };
}

export interface Harness {
  readonly issuer: string;
  readonly port: number;
  stats(): HarnessStats;
  resetStats(): void;
  holdNextRefresh(): void;
  release(): Promise<{ released: number; dropped: number }>;
  expireAccessTokens(): number;
  signIn(login?: string, options?: { client?: string }): Promise<{ refresh_token: string; access_token: string }>;
  close(): Promise<void>;
}

/** The harness's cookie jar: a browser's cookies, kept as Chromium keeps them on loopback. */
export interface CookieJar {
  list(url: string | URL): { name: string; value: string; httpOnly: boolean; sameSite: string; secure: boolean }[];
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export interface BrowseResult {
  readonly url: URL;
  readonly stopped: boolean;
  readonly status?: number;
  readonly body?: string;
  readonly cookies: CookieJar;
}

export const CLIENT_SECRET = 'bff-spec-secret';

// Through a variable: TypeScript would look for the types of the JavaScript module, which it has not.
const HARNESS_PATH = '../../../../e2e/oidc/oidc-provider-server.mjs';
export const harnessModule = (): Promise<HarnessModule> => import(HARNESS_PATH) as Promise<HarnessModule>;

/** A store that lets a spec see what the BFF wrote (the records hold the tokens the browser never sees). */
export interface WatchedStore extends BffSessionStore {
  /** Every session record created, in order. */
  readonly created: BffSession[];
  /** How many times `change` was called (each holds the session: a transaction in PostgreSQL). */
  readonly changes: number;
}

export function watchStore(store: BffSessionStore = createBffMemoryStore(), created: BffSession[] = []): WatchedStore {
  let changes = 0;
  return {
    created,
    get changes() {
      return changes;
    },
    read: (key, now) => store.read(key, now),
    create: (session) => {
      created.push(session);
      return store.create(session);
    },
    touch: (key, lastSeenAt) => store.touch(key, lastSeenAt),
    delete: (key) => store.delete(key),
    change: (key, change) => {
      changes += 1;
      return store.change(key, change);
    },
  };
}

export interface TestApp {
  /** The app's origin, `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  readonly provider: Harness;
  /** The API's origin; its routes are listed at {@link startApi}. */
  readonly apiUrl: string;
  /** What the API saw, last request last. */
  readonly apiRequests: ApiRequest[];
  /** The BFF instances behind the app's origin: requests go to each in turn. */
  readonly instances: Bff[];
  /** The instances' store (unless a spec gave each its own); `created` lists the sessions of all of them. */
  readonly store: WatchedStore;
  /** What the BFF said through `onWarning`. */
  readonly warnings: string[];
  /** The requests of the app's own pages (not the BFF's), with the cookies they carried. */
  readonly pageRequests: { readonly path: string; readonly cookie: string }[];
  /** Signs `login` in through the BFF as a browser would; the browser's cookies and the session record. */
  signIn(login?: string, returnUrl?: string): Promise<SignedIn>;
  /** A request of the app's page: same origin, with `x-csrf: 1`, and the cookies of `cookies`. */
  call(cookies: CookieJar, path: string, init?: RequestInit): Promise<Response>;
  /** Starts the provider again on the same port, after `stopProvider()` (its data kept on disk). */
  restartProvider(): Promise<void>;
  /** Stops the provider: its port refuses connections. */
  stopProvider(): Promise<void>;
  close(): Promise<void>;
}

export interface SignedIn {
  readonly cookies: CookieJar;
  readonly session: BffSession;
  /** Where the sign-in's walk ended (the app's page). */
  readonly page: BrowseResult;
}

export interface TestAppOptions {
  readonly provider?: Omit<HarnessOptions, 'bffClient' | 'port'>;
  /**
   * Options of every BFF instance, over those the app sets (issuer, client, baseUrl, apis, store...);
   * a function when they depend on the provider's issuer or the API's URL.
   */
  readonly bff?: Partial<BffOptions> | ((world: { issuer: string; apiUrl: string }) => Partial<BffOptions>);
  /** How many BFF instances serve the app's origin, in turn; default 1. */
  readonly instances?: number;
  /** The store of each instance (by index), watched as `store` is; default one memory store for all. */
  readonly stores?: readonly BffSessionStore[];
}

/** What the API stub received. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/**
 * Starts the app with its BFF, the provider and the API. Defaults of the BFF here: `prompt=consent`
 * (the harness issues refresh tokens only then), `/api` for the API, DPoP off (the API stub checks
 * Bearer tokens; the DPoP specs turn it on).
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { startOidcProvider, browseSignIn, CookieJar } = await harnessModule();
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const appServer = createServer((req, res) => handler(req, res));
  const baseUrl = `http://127.0.0.1:${await listen(appServer)}`;
  const storeFile = `${process.env['TMPDIR'] ?? '/tmp'}/bff-spec-provider-${process.pid}-${Math.random().toString(36).slice(2)}.json`;
  const providerOptions: HarnessOptions = {
    accessTokenTtl: 60,
    storeFile,
    ...options.provider,
    bffClient: {
      secret: CLIENT_SECRET,
      redirectUris: [`${baseUrl}/bff/callback`],
      postLogoutRedirectUris: [`${baseUrl}/`],
    },
  };
  let provider = await startOidcProvider(providerOptions);
  const port = provider.port;
  const api = await startApi(() => provider.issuer);
  const warnings: string[] = [];
  const watched = watchStore();
  const overrides =
    typeof options.bff === 'function' ? options.bff({ issuer: provider.issuer, apiUrl: api.url }) : options.bff;
  const instances = Array.from({ length: options.instances ?? 1 }, (_, index) =>
    createBff({
      issuer: provider.issuer,
      clientId: 'bff',
      clientSecret: CLIENT_SECRET,
      baseUrl,
      apis: { '/api': api.url },
      authorizationParams: { prompt: 'consent' },
      dpop: false,
      onWarning: (message) => warnings.push(message),
      ...overrides,
      store: options.stores?.[index]
        ? watchStore(options.stores[index], watched.created)
        : (overrides?.store ?? watched),
    }),
  );
  const pageRequests: { path: string; cookie: string }[] = [];
  let turn = 0;
  handler = (req, res) => {
    const bff = instances[turn++ % instances.length];
    serve(bff, baseUrl, req, res, (path) => pageRequests.push({ path, cookie: req.headers.cookie ?? '' })).catch(
      (error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  };

  const app: TestApp = {
    baseUrl,
    get provider() {
      return provider;
    },
    apiUrl: api.url,
    apiRequests: api.requests,
    instances,
    store: watched,
    warnings,
    pageRequests,
    signIn: async (login = 'ada', returnUrl = '/account') => {
      const created = watched.created.length;
      const page = await browseSignIn(`${baseUrl}/bff/login?returnUrl=${encodeURIComponent(returnUrl)}`, {
        login,
        cookies: new CookieJar(),
      });
      const session = watched.created[created];
      if (session === undefined) {
        throw new Error(`the sign-in made no session: ${page.status} at ${page.url} ${page.body?.slice(0, 300)}`);
      }
      return { cookies: page.cookies, session, page };
    },
    call: (cookies, path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('x-csrf')) headers.set('x-csrf', '1');
      return cookies.fetch(`${baseUrl}${path}`, { ...init, headers });
    },
    stopProvider: () => provider.close(),
    restartProvider: async () => {
      provider = await startOidcProvider({ ...providerOptions, port });
    },
    close: async () => {
      await Promise.all(instances.map((bff) => bff.close()));
      await Promise.all([provider.close(), api.close(), closeServer(appServer)]);
      const { rm } = await import('node:fs/promises');
      await rm(storeFile, { force: true });
    },
  };
  return app;
}

/** A browser of the app's origin that never signed in. */
export async function newBrowser(): Promise<CookieJar> {
  return new (await harnessModule()).CookieJar();
}

/**
 * The API behind the BFF, on 127.0.0.1. Every route first checks the access token at the provider's
 * userinfo endpoint (Bearer), and answers 401 `invalid_token` when the provider refuses it (at
 * `/api-stub/bare`, a 401 without `WWW-Authenticate`; at `/api-stub/always-401`, whatever the token); then:
 * - `/api-stub/echo...`: 200 JSON `{ sub, method, path, headers, body }` with some headers of its own
 *   (`set-cookie`, `x-api`, `connection: x-hop`, `x-hop`, and CORS headers for browsers calling it directly);
 * - `/api-stub/gzip`: the same JSON, gzip-compressed, with `content-encoding: gzip`;
 * - `/api-stub/html-error`: 502 with an HTML page;
 * - `/api-stub/forbidden`: 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`;
 * - `/api-stub/no-content`: 204.
 */
async function startApi(issuer: () => string) {
  const requests: ApiRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? 'GET', path, headers: { ...req.headers }, body });
      const userinfo = await fetch(`${issuer()}/me`, { headers: { authorization: req.headers.authorization ?? '' } });
      const route = new URL(path, 'http://api.invalid').pathname;
      if (userinfo.status !== 200 || route === '/api-stub/always-401') {
        res.writeHead(401, {
          'content-type': 'application/json',
          ...(route === '/api-stub/bare' ? {} : { 'www-authenticate': 'Bearer error="invalid_token"' }),
        });
        res.end(JSON.stringify({ error: { code: 'Unauthorized', message: 'token refused' } }));
        return;
      }
      const { sub } = (await userinfo.json()) as { sub: string };
      const echo = JSON.stringify({ sub, method: req.method, path, headers: req.headers, body });
      if (route === '/api-stub/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(echo));
      } else if (route === '/api-stub/html-error') {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      } else if (route === '/api-stub/forbidden') {
        res.writeHead(403, {
          'www-authenticate': 'Bearer error="insufficient_scope"',
          'content-type': 'application/json',
        });
        res.end(JSON.stringify({ error: { code: 'Forbidden', message: 'not yours' } }));
      } else if (route === '/api-stub/no-content') {
        res.writeHead(204).end();
      } else {
        res.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': 'api-cookie=1; Path=/',
          'x-api': 'yes',
          connection: 'x-hop',
          'x-hop': 'hop-by-hop',
          'access-control-allow-origin': '*',
          'access-control-expose-headers': 'x-api',
        });
        res.end(echo);
      }
    })().catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/api-stub`, requests, close: () => closeServer(server) };
}

/** Node's request as a Web `Request` to `bff.handle`, and its answer (or the app's page) back. */
async function serve(
  bff: Bff,
  baseUrl: string,
  req: IncomingMessage,
  res: ServerResponse,
  onPage: (path: string) => void,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const request = new Request(new URL(req.url ?? '/', baseUrl), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    duplex: 'half',
  } as RequestInit);
  let response = await bff.handle(request);
  if (response === null) {
    const path = new URL(request.url).pathname;
    onPage(path);
    response = appPage(path);
  }
  const outgoing: [string, string][] = [];
  response.headers.forEach((value, name) => name !== 'set-cookie' && outgoing.push([name, value]));
  for (const cookie of response.headers.getSetCookie()) outgoing.push(['set-cookie', cookie]);
  res.writeHead(response.status, outgoing.flat());
  if (response.body === null) {
    res.end();
    return;
  }
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}

function appPage(path: string): Response {
  return new Response(`<!doctype html><title>app</title><p>the app's page ${path}</p>`, {
    headers: { 'content-type': 'text/html' },
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Makes `count` calls of `path` at once in the signed-in browser; checks that every one answered 200. */
export async function callAtOnce(app: TestApp, cookies: CookieJar, path: string, count: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => app.call(cookies, `${path}?call=${i}`)));
  assert.deepEqual(
    answers.map(({ status }) => status),
    answers.map(() => 200),
  );
}

/** The PostgreSQL of DATABASE_URL, when it is set: the specs of instances with their own pools. */
export function postgresDatabases() {
  return testDatabases().filter((database) => database.name === 'PostgreSQL');
}

/** The stores of two BFF instances on one database, each on its own pool, as two servers have them. */
export function twoInstanceStores(database: TestDatabase): BffSessionStore[] {
  return [database.pool, database.connectAgain() ?? database.pool].map((pool) => createBffPostgresStore({ pool }));
}
