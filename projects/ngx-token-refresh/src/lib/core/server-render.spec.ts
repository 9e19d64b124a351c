/**
 * @jest-environment node
 */
import {
  HttpClient,
  type HttpErrorResponse,
  provideHttpClient,
  withFetch,
  withInterceptors,
} from '@angular/common/http';
import {
  type ApplicationConfig,
  Component,
  InjectionToken,
  type OnInit,
  inject,
  provideAppInitializer,
  provideZonelessChangeDetection,
  signal,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type TokenRefreshEvent,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';

import { listenOnLoopback, runAsServerBundle, textOf } from '../internal/server-render.spec-helper';

/** How long the test backend sits on a refresh before answering it. */
const REFRESH_DELAY_MS = 100;
/** How long the test backend holds a refresh at most while it waits for others to arrive. */
const GATHER_TIMEOUT_MS = 1000;
/** Concurrent calls the app makes to `/api/me` on init. */
const CALLS = 3;

/** The user a render is for: per request, like `REQUEST` in @angular/ssr, so it comes from the platform. */
const RENDER_USER = new InjectionToken<string>('RENDER_USER');

/** What withProactiveRefresh planned in any render: on the server, nothing at all. */
const scheduled: TokenRefreshEvent[] = [];

describe('server rendering with provideTokenRefresh', () => {
  let backend: TestBackend;
  /** What reached the cross-tab channel, and the locks asked for: a server must use neither. */
  let crossTab: { heard: unknown[]; lockRequests: number; channel: BroadcastChannel; restore: () => void };

  runAsServerBundle();

  beforeAll(async () => {
    backend = await startTestBackend();
    crossTab = watchCrossTabApis();
  });

  afterAll(async () => {
    crossTab.restore();
    await backend.close();
  });

  beforeEach(() => backend.reset());

  describe.each(['absolute', 'relative'] as const)('with %s URLs', (urls) => {
    // One configuration for every render, like the `appConfig` constant of a real server bundle.
    let config: ApplicationConfig;
    beforeAll(() => (config = createAppConfig(urls === 'absolute' ? backend.origin : '')));

    const render = (user: string) =>
      renderApplication((context) => bootstrapApplication(ProfileApp, config, context), {
        document: '<html><head></head><body><app-root></app-root></body></html>',
        // Relative URLs need the request URL: platform-server resolves them against it, after the
        // app's interceptors, so the token-refresh interceptor itself sees `/api/me`.
        url: urls === 'relative' ? `${backend.origin}/profile` : undefined,
        allowedHosts: ['127.0.0.1'],
        platformProviders: [{ provide: RENDER_USER, useValue: user }],
      });

    it('renders the API data after one refresh repeats the calls that got 401', async () => {
      const html = await render('ada');

      expect(textOf(html, 'names')).toBe('ada,ada,ada');
      expect(textOf(html, 'token')).toBe('fresh-ada-1');
      expect(backend.refreshes().map((refresh) => refresh.user)).toEqual(['ada']);
      expect(backend.calls('/api/me').map((call) => call.authorization)).toEqual([
        ...Array<string>(CALLS).fill('Bearer expired-ada'),
        ...Array<string>(CALLS).fill('Bearer fresh-ada-1'),
      ]);
    });

    it('keeps two parallel renders apart: each refreshes once and shows only its own user', async () => {
      // Answer no refresh before both arrived, so the two renders' refreshes are in flight together.
      backend.gatherRefreshes(2);

      const [adaHtml, alanHtml] = await Promise.all([render('ada'), render('alan')]);

      expect(textOf(adaHtml, 'names')).toBe('ada,ada,ada');
      expect(textOf(adaHtml, 'token')).toBe('fresh-ada-1');
      expect(appOf(adaHtml)).not.toContain('alan');
      expect(textOf(alanHtml, 'names')).toBe('alan,alan,alan');
      expect(textOf(alanHtml, 'token')).toBe('fresh-alan-1');
      expect(appOf(alanHtml)).not.toContain('ada');

      const refreshes = backend.refreshes();
      expect(refreshes.map((refresh) => refresh.user).sort()).toEqual(['ada', 'alan']);
      expect(Math.max(...refreshes.map((refresh) => refresh.at))).toBeLessThan(backend.firstRefreshAnsweredAt());
      const calls = backend.calls('/api/me');
      for (const user of ['ada', 'alan']) {
        expect(calls.filter((call) => call.user === user)).toHaveLength(2 * CALLS);
      }
      const freshCalls = calls.filter((call) => call.authorization?.startsWith('Bearer fresh-'));
      expect(freshCalls).toHaveLength(2 * CALLS);
      for (const call of freshCalls) {
        expect(call.authorization).toBe(`Bearer fresh-${call.user}-1`);
      }
      // withCrossTabSync is on in every render: in a Node process its channel would reach every
      // render of the process, so on the server it must stay silent, even where Web Locks exist.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(crossTab.heard).toEqual([]);
      expect(crossTab.lockRequests).toBe(0);
      // withProactiveRefresh too: a render lives for one request, a timer there would outlive it.
      expect(scheduled).toEqual([]);
    });
  });
});

/** Fires {@link CALLS} concurrent `/api/me` calls on init and renders the names and the final token. */
@Component({
  selector: 'app-root',
  template: `<p id="names">{{ names().join(',') }}</p>
    <p id="token">{{ token() }}</p>`,
})
class ProfileApp implements OnInit {
  readonly #http = inject(HttpClient);
  readonly #user = inject(RENDER_USER);
  readonly #apiBase = inject(API_BASE);
  protected readonly token = injectTokenRefresh().token;
  protected readonly names = signal<string[]>([]);

  ngOnInit(): void {
    for (let i = 0; i < CALLS; i++) {
      // X-User is only the test backend's witness of which render sent a call.
      this.#http.get<{ name: string }>(`${this.#apiBase}/api/me`, { headers: { 'X-User': this.#user } }).subscribe({
        next: ({ name }) => this.names.update((names) => [...names, name]),
        error: (error: HttpErrorResponse) => this.names.update((names) => [...names, `error ${error.status}`]),
      });
    }
  }
}

/** Where the app sends its calls: the test backend's origin, or `''` for relative URLs. */
const API_BASE = new InjectionToken<string>('API_BASE');

function createAppConfig(apiBase: string): ApplicationConfig {
  return {
    providers: [
      provideZonelessChangeDetection(),
      provideServerRendering(),
      provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
      provideTokenRefresh(
        {
          refreshApiCall: () =>
            inject(HttpClient).post(`${apiBase}/auth/refresh`, { user: inject(RENDER_USER) }, { observe: 'response' }),
          extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          attachToken: true,
          // http is allowed on loopback hosts, which 127.0.0.1 is.
          allowedOrigins: apiBase ? [apiBase] : [],
        },
        withCrossTabSync(),
        withProactiveRefresh(),
      ),
      provideAppInitializer(() => {
        injectTokenRefresh().events.subscribe((event) => event.type === 'refreshScheduled' && scheduled.push(event));
      }),
      provideAppInitializer(() => injectTokenRefresh().setToken(`expired-${inject(RENDER_USER)}`)),
      { provide: API_BASE, useValue: apiBase },
    ],
  };
}

/**
 * Listens on the cross-tab channel of this process and puts a Web Locks API on `navigator` (which
 * Node 20 lacks and later versions may have) that counts its uses.
 */
function watchCrossTabApis() {
  const heard: unknown[] = [];
  const channel = new BroadcastChannel('ngx-token-refresh');
  channel.onmessage = (event) => heard.push((event as MessageEvent).data);
  const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  const watch = { heard, lockRequests: 0, channel, restore: () => undefined as void };
  const locks = {
    request: async (name: string, ...rest: unknown[]) => {
      watch.lockRequests++;
      const callback = rest.at(-1) as (lock: { name: string }) => unknown;
      return callback({ name });
    },
    query: async () => ({ held: [], pending: [] }),
  };
  Object.defineProperty(globalThis, 'navigator', { configurable: true, value: { locks } });
  watch.restore = () => {
    channel.close();
    if (before) Object.defineProperty(globalThis, 'navigator', before);
    else delete (globalThis as { navigator?: unknown }).navigator;
  };
  return watch;
}

/** The rendered `<app-root>` element. */
function appOf(html: string): string | undefined {
  return /<app-root[\s\S]*<\/app-root>/.exec(html)?.[0];
}

interface RecordedCall {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  /** The user named by the refresh body, or by the X-User header of an API call. */
  readonly user: string | undefined;
  /** Arrival time (performance.now()). */
  readonly at: number;
}

interface TestBackend {
  readonly origin: string;
  /** Forgets the calls and the issued tokens; refreshes are answered one by one again. */
  reset(): void;
  /** Holds refreshes until `count` of them arrived, then answers them together. */
  gatherRefreshes(count: number): void;
  calls(path: string): RecordedCall[];
  refreshes(): RecordedCall[];
  firstRefreshAnsweredAt(): number;
  close(): Promise<void>;
}

/**
 * `POST /auth/refresh` answers `{ accessToken: 'fresh-<user>-<n>' }` after {@link REFRESH_DELAY_MS};
 * `GET /api/me` answers 401 unless the Bearer token is a fresh one, then `{ name: <its user> }`.
 */
async function startTestBackend(): Promise<TestBackend> {
  let calls: RecordedCall[] = [];
  let issued = new Map<string, number>();
  let toGather = 1;
  let held: (() => void)[] = [];
  let answeredAt = Infinity;

  const sendJson = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const at = performance.now();
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const authorization = request.headers.authorization;
    if (request.method === 'POST' && path === '/auth/refresh') {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const { user } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { user?: string };
      calls.push({ method: 'POST', path, authorization, user, at });
      if (!user) return sendJson(response, 400, { message: 'no user' });
      held.push(() => {
        const n = (issued.get(user) ?? 0) + 1;
        issued.set(user, n);
        answeredAt = Math.min(answeredAt, performance.now());
        sendJson(response, 200, { accessToken: `fresh-${user}-${n}` });
      });
      if (held.length >= toGather) {
        const answers = held;
        held = [];
        setTimeout(() => answers.forEach((answer) => answer()), REFRESH_DELAY_MS);
      } else {
        // Should the others never come, answer anyway: the test then fails on what it sees, not on a timeout.
        const answer = held[held.length - 1];
        setTimeout(() => {
          if (!held.includes(answer)) return;
          held = held.filter((other) => other !== answer);
          answer();
        }, GATHER_TIMEOUT_MS);
      }
      return;
    }
    const user = request.headers['x-user'];
    calls.push({
      method: request.method ?? '',
      path,
      authorization,
      user: typeof user === 'string' ? user : undefined,
      at,
    });
    if (request.method === 'GET' && path === '/api/me') {
      const tokenUser = /^Bearer fresh-([a-z]+)-\d+$/.exec(authorization ?? '')?.[1];
      return tokenUser ? sendJson(response, 200, { name: tokenUser }) : sendJson(response, 401, { message: 'expired' });
    }
    sendJson(response, 404, { message: 'not found' });
  };

  const server = await listenOnLoopback((request, response) => void handle(request, response));

  return {
    origin: server.origin,
    reset: () => {
      calls = [];
      issued = new Map();
      toGather = 1;
      held = [];
      answeredAt = Infinity;
    },
    gatherRefreshes: (count) => (toGather = count),
    calls: (path) => calls.filter((call) => call.path === path),
    refreshes: () => calls.filter((call) => call.path === '/auth/refresh'),
    firstRefreshAnsweredAt: () => answeredAt,
    close: () => server.close(),
  };
}
