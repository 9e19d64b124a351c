import { type IncomingMessage, type RequestListener, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Shared by the server-render specs (not part of the library build: see tsconfig.lib.json).

const globals = globalThis as { ngServerMode?: boolean };

/**
 * Runs the specs of the calling `describe` as a server bundle does: `ngServerMode` defined from the
 * start (without it, platformServer() would set it for one render and unset it when that render
 * ends, under any render still running), and without dev mode's "Angular is running in development
 * mode." on every bootstrap.
 */
export function runAsServerBundle(): void {
  let serverModeBefore: boolean | undefined;
  beforeAll(() => {
    const log = console.log;
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (args[0] !== 'Angular is running in development mode.') log(...args);
    });
    serverModeBefore = globals.ngServerMode;
    globals.ngServerMode = true;
  });
  afterAll(() => {
    globals.ngServerMode = serverModeBefore;
    jest.restoreAllMocks();
  });
}

/** An HTTP server on 127.0.0.1 and a free port, for a spec's backend. */
export async function listenOnLoopback(handler: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this, close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** The text of the `<p>` with this id in the rendered HTML. */
export function textOf(html: string, id: string): string | undefined {
  return new RegExp(`<p id="${id}">([^<]*)</p>`).exec(html)?.[1];
}

/** The rendered page's transfer state (`<script id="ng-state">`), parsed. */
export function transferStateOf(html: string): Record<string, unknown> {
  const json = /<script id="ng-state" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1];
  return json ? (JSON.parse(json) as Record<string, unknown>) : {};
}

export interface RecordedCall {
  readonly path: string;
  readonly cookie: string | undefined;
  readonly at: number;
}

export interface CookieBackend {
  readonly origin: string;
  reset(): void;
  gatherRefreshes(count: number): void;
  calls(path: string): RecordedCall[];
  refreshes(): RecordedCall[];
  all(): RecordedCall[];
  close(): Promise<void>;
}

/**
 * `POST /auth/refresh` reads `rt=rt-<user>-<n>` from the Cookie header and answers
 * `{ accessToken: 'at-<user>-<n+1>' }` with two `Set-Cookie` (the rotated `rt`, and `seen=1`); any
 * other `rt` gets 401 and a `Set-Cookie` clearing it. `GET /api/me` answers `{ name }` for a Bearer
 * `at-<user>-<n>`, else 401.
 */
export async function startCookieBackend(): Promise<CookieBackend> {
  let calls: RecordedCall[] = [];
  let toGather = 1;
  let held: (() => void)[] = [];

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const cookie = request.headers.cookie;
    calls.push({ path, cookie, at: performance.now() });
    if (request.method === 'POST' && path === '/auth/refresh') {
      const match = /(?:^|; )rt=rt-([a-z]+)-(\d+)(?:;|$)/.exec(cookie ?? '');
      if (!match) {
        response.writeHead(401, { 'Content-Type': 'application/json', 'Set-Cookie': 'rt=; Max-Age=0; Path=/' });
        response.end(JSON.stringify({ error: { code: 'InvalidRefreshToken', message: 'no' } }));
        return;
      }
      const [, user, n] = match;
      const next = Number(n) + 1;
      held.push(() => {
        response.writeHead(200, {
          'Content-Type': 'application/json',
          'Set-Cookie': [`rt=rt-${user}-${next}; Path=/; HttpOnly; SameSite=Strict`, 'seen=1; Path=/'],
        });
        response.end(JSON.stringify({ accessToken: `at-${user}-${next}` }));
      });
      if (held.length >= toGather) {
        const answers = held;
        held = [];
        answers.forEach((answer) => answer());
      }
      return;
    }
    if (request.method === 'GET' && path === '/api/me') {
      const user = /^Bearer at-([a-z]+)-\d+$/.exec(request.headers.authorization ?? '')?.[1];
      response.writeHead(user ? 200 : 401, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(user ? { name: user } : { message: 'no token' }));
      return;
    }
    response.writeHead(404).end();
  };

  const server = await listenOnLoopback(handle);
  return {
    origin: server.origin,
    reset: () => {
      calls = [];
      toGather = 1;
      held = [];
    },
    gatherRefreshes: (count) => (toGather = count),
    calls: (path) => calls.filter((call) => call.path === path),
    refreshes: () => calls.filter((call) => call.path === '/auth/refresh'),
    all: () => calls,
    close: () => server.close(),
  };
}
