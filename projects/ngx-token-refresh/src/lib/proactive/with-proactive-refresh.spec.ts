import {
  HttpBackend,
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpRequest,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { PLATFORM_ID, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import fc from 'fast-check';
import {
  type ProactiveRefreshOptions,
  type TokenRefreshEvent,
  type TokenRefreshRef,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withNoCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { Observable, firstValueFrom } from 'rxjs';

/*
 * withProactiveRefresh on a virtual clock: Jest's fake timers drive setTimeout and Date.now, and
 * `setSystemTime` moves the wall clock without firing timers, as a device's sleep does. The server
 * below has its own clock (the device's plus `skewMs`), issues JWTs stamped with it, and rejects a
 * token once its `exp` has passed by that clock.
 */

const START = Date.UTC(2026, 10, 23, 9, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** An API and refresh endpoint that answers after `latencyMs`, with the clock of a server. */
class ClockServer {
  /** The server's clock minus the device's, in ms: positive when the device is behind. */
  skewMs = 0;
  lifetimeSeconds = 900;
  latencyMs = 50;
  /** Answer refreshes with this status instead of a token, when set. */
  refreshStatus: number | null = null;
  readonly #revoked = new Set<string>();
  readonly #issued: string[] = [];
  refreshes: number[] = [];
  unauthorized = 0;
  #serial = 0;

  now(): number {
    return Date.now() + this.skewMs;
  }

  issue(lifetimeSeconds = this.lifetimeSeconds): string {
    const iat = Math.floor(this.now() / 1000);
    const token = createTestJwt({ iat, exp: iat + lifetimeSeconds, jti: `${++this.#serial}` });
    this.#issued.push(token);
    return token;
  }

  /** Every token issued so far stops working (a revocation), whatever its `exp`. */
  revokeAll(): void {
    for (const token of this.#issued) this.#revoked.add(token);
  }

  readonly backend: HttpBackend = {
    handle: (request: HttpRequest<unknown>) =>
      new Observable<HttpEvent<unknown>>((subscriber) => {
        const isRefresh = request.url === '/auth/refresh';
        if (isRefresh) this.refreshes.push(Date.now());
        const authorization = request.headers.get('Authorization');
        const timer = setTimeout(() => {
          if (isRefresh) {
            if (this.refreshStatus !== null) {
              subscriber.error(new HttpErrorResponse({ status: this.refreshStatus, url: request.url }));
              return;
            }
            subscriber.next(new HttpResponse({ status: 200, body: { accessToken: this.issue() }, url: request.url }));
          } else if (this.accepts(authorization?.replace(/^Bearer /, ''))) {
            subscriber.next(new HttpResponse({ status: 200, body: request.url, url: request.url }));
          } else {
            this.unauthorized++;
            subscriber.error(new HttpErrorResponse({ status: 401, url: request.url }));
            return;
          }
          subscriber.complete();
        }, this.latencyMs);
        return () => clearTimeout(timer);
      }),
  };

  accepts(token: string | undefined): boolean {
    const payload = token?.split('.')[1];
    if (!payload || this.#revoked.has(token!)) return false;
    const { exp } = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp: number };
    return exp * 1000 > this.now();
  }
}

interface Setup {
  readonly server: ClockServer;
  readonly state: TokenRefreshRef;
  readonly http: HttpClient;
  readonly events: TokenRefreshEvent[];
  readonly failures: unknown[];
  /** Where the last `refreshScheduled` put the next refresh (device time), or null. */
  due(): number | null | undefined;
  get(url?: string): Promise<'ok' | number>;
}

function setup(
  options: ProactiveRefreshOptions = {},
  configure: (server: ClockServer) => void = () => undefined,
  platform = 'browser',
): Setup {
  const server = new ClockServer();
  configure(server);
  const failures: unknown[] = [];
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      { provide: HttpBackend, useValue: server.backend },
      { provide: PLATFORM_ID, useValue: platform },
      provideTokenRefresh(
        {
          attachToken: true,
          refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
          extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          onRefreshFailure: (error) => failures.push(error),
        },
        withProactiveRefresh(options),
      ),
    ],
  });
  const state = TestBed.runInInjectionContext(() => injectTokenRefresh());
  const events: TokenRefreshEvent[] = [];
  state.events.subscribe((event) => events.push(event));
  const http = TestBed.inject(HttpClient);
  return {
    server,
    state,
    http,
    events,
    failures,
    due: () => events.filter((event) => event.type === 'refreshScheduled').at(-1)?.at,
    get: (url = '/api/data') =>
      new Promise((resolve) =>
        http.get(url).subscribe({
          next: () => resolve('ok'),
          error: (error: HttpErrorResponse) => resolve(error.status),
        }),
      ),
  };
}

/** An application wired with `provideAuth` (session storage, no cross-tab sync) and `feature`. */
function setupAuth(server: ClockServer, feature = withProactiveRefresh()): TokenRefreshRef {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      { provide: HttpBackend, useValue: server.backend },
      provideAuth({ tokenStorage: 'session' }, feature, withNoCrossTabSync()),
    ],
  });
  return TestBed.runInInjectionContext(() => injectTokenRefresh());
}

/** Lets `ms` of virtual time pass, running timers and the promises they resolve. */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** Lets virtual time pass until `promise` settles (at most 10 s), and returns it. */
async function settled<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.then(() => (done = true));
  for (let waited = 0; waited < 10_000 && !done; waited += 10) await advance(10);
  return promise;
}

/** The device sleeps for `ms`: its wall clock moves on, its timers stand still. */
const sleep = (ms: number) => jest.setSystemTime(Date.now() + ms);

function setVisibility(state: 'visible' | 'hidden'): void {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

const startedAhead = (events: TokenRefreshEvent[]) =>
  events.filter((event) => event.type === 'refreshStarted' && event.ahead).length;

describe('withProactiveRefresh', () => {
  beforeEach(() => jest.useFakeTimers({ now: START }));

  afterEach(() => {
    TestBed.resetTestingModule();
    sessionStorage.clear();
    delete (document as { visibilityState?: unknown }).visibilityState;
    jest.useRealTimers();
  });

  describe('the lead time', () => {
    it('refreshes one minute before exp by default, once, and then plans the next one from the new token', async () => {
      const { server, state, events, due } = setup();
      const first = server.issue();
      state.setToken(first);
      expect(due()).toBe(START + 14 * MINUTE - SECOND);

      await advance(14 * MINUTE - SECOND - 1);
      expect(server.refreshes).toEqual([]);
      await advance(1);
      expect(server.refreshes).toEqual([START + 14 * MINUTE - SECOND]);
      expect(events.find((event) => event.type === 'refreshStarted')).toEqual({
        type: 'refreshStarted',
        request: null,
        ahead: true,
      });

      await advance(server.latencyMs);
      expect(state.token()).not.toBe(first);
      // Issued at 13:59.050 with iat 13:59, and taken as issued at the end of that second (iat has
      // whole seconds, so err on the early side): due 0.95 s early, at 27:58.050.
      expect(due()).toBe(START + 28 * MINUTE - 2 * SECOND + server.latencyMs);
      await advance(14 * MINUTE);
      expect(server.refreshes).toHaveLength(2);
    });

    it('takes the leadTime option', async () => {
      const { server, state, due } = setup({ leadTime: 2 * MINUTE });
      state.setToken(server.issue());
      expect(due()).toBe(START + 13 * MINUTE - SECOND);
    });

    it('takes a token without iat as issued when it arrived: the quarter-lifetime cap holds', async () => {
      const { server, state } = setup();
      const issue = () => createTestJwt({ iat: undefined, exp: Math.floor(Date.now() / 1000) + 30 });
      server.issue = issue;
      state.setToken(issue());
      await advance(60_000);
      // Due a quarter of its lifetime before its exp (22.5 s in), not every minInterval: twice a minute.
      expect(server.refreshes).toHaveLength(2);
      expect(server.refreshes[0]).toBe(START + 22_500);
    });

    it('refreshes a short token no earlier than three quarters into its life', async () => {
      const { server, state, due } = setup({}, (s) => (s.lifetimeSeconds = 40));
      state.setToken(server.issue());
      // A minute of lead would be longer than the token lives: a quarter of 40 s it is.
      expect(due()).toBe(START + 29_000);
    });

    it('keeps steady traffic free of 401s across many lifetimes, with one refresh per lifetime', async () => {
      const { server, state, get } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      const answers: Promise<'ok' | number>[] = [];
      for (let second = 0; second < 600; second++) {
        answers.push(get());
        await advance(1000);
      }
      expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
      expect(server.unauthorized).toBe(0);
      // Every 90 s (120 s less a quarter), plus the latency of each refresh: 6 in 600 s.
      expect(server.refreshes).toHaveLength(6);
    });
  });

  describe('clock skew', () => {
    for (const [label, skewMs] of [
      ['5 minutes ahead', -5 * MINUTE],
      ['5 minutes behind', 5 * MINUTE],
      ['a day behind', 24 * 60 * MINUTE],
    ] as const) {
      it(`refreshes on time when the device clock is ${label}: the offset is read from iat`, async () => {
        const { server, state, due, get } = setup({}, (s) => (s.skewMs = skewMs));
        state.setToken(server.issue());
        expect(due()).toBe(START + 14 * MINUTE - SECOND);

        const answers: Promise<'ok' | number>[] = [];
        for (let minute = 0; minute < 40; minute++) {
          answers.push(get());
          await advance(MINUTE);
        }
        expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
        expect(server.unauthorized).toBe(0);
        expect(server.refreshes.map((at) => at - START)).toEqual([
          14 * MINUTE - SECOND,
          28 * MINUTE - 2 * SECOND + server.latencyMs,
        ]);
      });
    }

    it('reads a token restored after a reload (not fresh) by the device clock, until a fresh one measured the offset', async () => {
      const server = new ClockServer();
      server.skewMs = 10 * MINUTE;
      const stored = server.issue();
      sessionStorage.setItem('ngx-token-refresh.accessToken', stored);
      const state = setupAuth(server);
      const events: TokenRefreshEvent[] = [];
      state.events.subscribe((event) => events.push(event));
      expect(state.token()).toBe(stored);

      // Its exp read by a clock 10 minutes behind the server's: due 10 minutes late (its 401 would
      // refresh it meanwhile, as without the feature).
      await advance(14 * MINUTE);
      expect(server.refreshes).toEqual([]);
      await advance(10 * MINUTE);
      expect(server.refreshes).toEqual([START + 24 * MINUTE]);
      await advance(server.latencyMs);
      // The refreshed token is fresh: its iat gives the offset, and the next one is on time.
      const due = events.filter((event) => event.type === 'refreshScheduled').at(-1);
      expect(due).toEqual({ type: 'refreshScheduled', at: START + 38 * MINUTE - SECOND + server.latencyMs });
    });
  });

  describe('meeting a wave of 401s', () => {
    it('makes one refresh call when the timer fires as the 401s of revoked tokens come back', async () => {
      const { server, state, get, events } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      await advance(89_000 - server.latencyMs);
      // The tokens stop working now; five calls go out with the old one and fail together with the timer.
      server.revokeAll();
      const answers = Array.from({ length: 5 }, () => get());
      await advance(server.latencyMs);
      await advance(server.latencyMs * 3);

      expect(await Promise.all(answers)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(server.refreshes).toHaveLength(1);
      expect(events.filter((event) => event.type === 'refreshStarted')).toHaveLength(1);
    });

    it('holds the calls sent while the refresh ahead of expiry runs, and sends them with the new token', async () => {
      const { server, state, get, events } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      await advance(89_000);
      expect(server.refreshes).toHaveLength(1);
      const answers = Array.from({ length: 3 }, () => get());
      await advance(server.latencyMs * 3);

      expect(await Promise.all(answers)).toEqual(['ok', 'ok', 'ok']);
      expect(server.unauthorized).toBe(0);
      expect(events.filter((event) => event.type === 'requestHeld')).toHaveLength(3);
    });

    it('sets no second timer when a 401 refreshed the token just before it was due', async () => {
      const { server, state, get } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      await advance(88_000);
      server.revokeAll();
      await settled(Promise.all([get(), get()]));
      expect(server.refreshes).toHaveLength(1);
      await advance(60_000);
      expect(server.refreshes).toHaveLength(1);
    });
  });

  describe('sleep and visibility', () => {
    it('refreshes within 10 s of waking when the token came due while the device slept', async () => {
      const { server, state, get } = setup();
      state.setToken(server.issue());
      await advance(MINUTE);
      sleep(30 * MINUTE);
      await advance(10_000);
      expect(server.refreshes).toHaveLength(1);
      await advance(server.latencyMs);
      expect(await settled(get())).toBe('ok');
      expect(server.unauthorized).toBe(0);
    });

    it('sets no timer while the page is hidden, and refreshes at once when it is shown after the due time', async () => {
      const { server, state, get } = setup();
      state.setToken(server.issue());
      setVisibility('hidden');
      expect(jest.getTimerCount()).toBe(0);
      await advance(20 * MINUTE);
      expect(server.refreshes).toEqual([]);

      setVisibility('visible');
      await advance(0);
      expect(server.refreshes).toEqual([START + 20 * MINUTE]);
      await advance(server.latencyMs);
      expect(await settled(get())).toBe('ok');
      expect(server.unauthorized).toBe(0);
    });

    it('shown again before the due time, plans to refresh at the due time, not at once', async () => {
      const { server, state } = setup();
      state.setToken(server.issue());
      setVisibility('hidden');
      await advance(5 * MINUTE);
      setVisibility('visible');
      await advance(0);
      expect(server.refreshes).toEqual([]);
      await advance(9 * MINUTE);
      expect(server.refreshes).toEqual([START + 14 * MINUTE - SECOND]);
    });

    it("refreshes before the app's own calls on showing go out, so they carry the new token", async () => {
      const { server, state, get, events } = setup();
      state.setToken(server.issue());
      setVisibility('hidden');
      await advance(20 * MINUTE);
      // The app refetches when it is shown again (a listener of its own, added before ours or after).
      const answers: Promise<'ok' | number>[] = [];
      const refetch = () => document.visibilityState === 'visible' && answers.push(get());
      document.addEventListener('visibilitychange', refetch);
      setVisibility('visible');
      document.removeEventListener('visibilitychange', refetch);
      expect(await settled(Promise.all(answers))).toEqual(['ok']);
      expect(server.unauthorized).toBe(0);
      expect(events.filter((event) => event.type === 'requestHeld')).toHaveLength(1);
    });

    it('reads a token the app puts back with setToken(token, { restored: true }) by the clock it measured last', async () => {
      const { server, state, due } = setup({}, (s) => (s.skewMs = 10 * MINUTE));
      state.setToken(server.issue());
      expect(due()).toBe(START + 14 * MINUTE - SECOND);
      // Issued 10 minutes ago, put back (from the app's storage): 5 minutes left, due in 4.
      const old = createTestJwt({
        iat: Math.floor(server.now() / 1000) - 600,
        exp: Math.floor(server.now() / 1000) + 300,
      });
      state.setToken(old, { restored: true });
      expect(due()).toBe(START + 4 * MINUTE - SECOND);
      // Without the flag it counts as just issued, and its age would be taken for clock skew.
      state.setToken(old);
      expect(due()).toBe(START + 14 * MINUTE - SECOND);
    });

    it('checks at once on pageshow (a page back from the back/forward cache)', async () => {
      const { server, state } = setup();
      state.setToken(server.issue());
      sleep(20 * MINUTE);
      window.dispatchEvent(new Event('pageshow'));
      await advance(0);
      expect(server.refreshes).toEqual([START + 20 * MINUTE]);
    });
  });

  describe('a refresh ahead of expiry that fails', () => {
    it('keeps the token (still valid) and tells nobody, then tries again after minInterval, doubling each time', async () => {
      const { server, state, get, events, failures } = setup({}, (s) => (s.lifetimeSeconds = 400));
      const token = server.issue();
      state.setToken(token);
      server.refreshStatus = 503;
      await advance(339_000 + server.latencyMs);

      expect(state.token()).toBe(token);
      expect(failures).toEqual([]);
      expect(events.filter((event) => event.type === 'refreshFailed')).toEqual([
        expect.objectContaining({ type: 'refreshFailed', ahead: true }),
      ]);
      expect(await settled(get())).toBe('ok');

      // 5 s, then 10 s, then 20 s; the next (40 s) would come after the token's expiry (399 s).
      await advance(10_000);
      expect(server.refreshes.map((at) => at - START)).toEqual([339_000, 344_000]);
      await advance(30_000);
      expect(server.refreshes.map((at) => at - START)).toEqual([339_000, 344_000, 354_000, 374_000]);
      // No try is planned past the token's expiry: its 401 refreshes it then, the usual way.
      await advance(60_000);
      expect(server.refreshes).toHaveLength(4);
      // The refresh that 401 starts fails too: the caller gets its error, and onRefreshFailure runs.
      expect(await settled(get())).toBe(503);
      expect(failures).toHaveLength(1);
    });

    it('drops the added wait when the browser comes back online, but keeps minInterval between refreshes', async () => {
      const { server, state } = setup({}, (s) => (s.lifetimeSeconds = 400));
      state.setToken(server.issue());
      server.refreshStatus = 0;
      await advance(344_000 + server.latencyMs);
      // Two failures: the next try would wait 10 s, until 354 s.
      expect(server.refreshes.map((at) => at - START)).toEqual([339_000, 344_000]);
      server.refreshStatus = null;
      await advance(1_000);
      window.dispatchEvent(new Event('online'));
      window.dispatchEvent(new Event('online'));
      await advance(0);
      // Online at 345 s: no sooner than 5 s after the last try.
      expect(server.refreshes).toHaveLength(2);
      await advance(4_000);
      expect(server.refreshes.map((at) => at - START)).toEqual([339_000, 344_000, 349_000]);
    });

    it('is the usual refresh when the token expired meanwhile (a sleep): one call, and its failure is reported', async () => {
      const { server, state, get, events, failures } = setup();
      state.setToken(server.issue());
      server.refreshStatus = 503;
      server.latencyMs = 500;
      sleep(30 * MINUTE);
      for (let waited = 0; waited < 10_000 && server.refreshes.length === 0; waited += 100) await advance(100);
      expect(server.refreshes).toHaveLength(1);
      // A call the app sends while that refresh runs waits for it; after the failure it goes out as it
      // came, without a token, and its 401 reaches the caller without a second refresh.
      expect(await settled(get())).toBe(401);

      expect(server.refreshes).toHaveLength(1);
      expect(events.find((event) => event.type === 'refreshStarted')).toEqual({
        type: 'refreshStarted',
        request: null,
      });
      expect(failures).toHaveLength(1);
      expect(state.token()).toBeNull();
    });

    it('sends the calls held during it with the token it kept', async () => {
      const { server, state, get, events } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      server.refreshStatus = 503;
      await advance(89_000);
      expect(server.refreshes).toHaveLength(1);
      const answer = get();
      await advance(server.latencyMs * 2);
      expect(await answer).toBe('ok');
      expect(events.filter((event) => event.type === 'requestHeld')).toHaveLength(1);
      expect(server.unauthorized).toBe(0);
    });

    it('is the usual failure once a 401 joined it: onRefreshFailure runs and the callers get the error', async () => {
      const { server, state, get, failures } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      server.refreshStatus = 401;
      server.latencyMs = 500;
      await advance(89_000 - 100);
      server.revokeAll();
      const answer = get();
      await advance(1000);

      expect(await answer).toBe(401);
      expect(failures).toHaveLength(1);
      expect(state.token()).toBeNull();
      expect(server.refreshes).toHaveLength(1);
    });

    it('ends the session when the token expires and the usual refresh fails too', async () => {
      const { server, state, get, failures } = setup({}, (s) => (s.lifetimeSeconds = 120));
      state.setToken(server.issue());
      server.refreshStatus = 401;
      await advance(120_000);
      expect(failures).toEqual([]);
      expect(await settled(get())).toBe(401);
      expect(failures).toHaveLength(1);
      expect(state.token()).toBeNull();
    });
  });

  describe('an opaque token, with the lifetime its issuer gave (expires_in)', () => {
    /** An `expires_in` that `extractExpiresIn` throws on. */
    const THROW = Symbol('throw');

    /** An OAuth-style server: opaque tokens, `expires_in` seconds, refreshes counted. */
    function setupOpaque(expiresIn: () => unknown) {
      const refreshes: number[] = [];
      let serial = 0;
      const backend: HttpBackend = {
        handle: (request) =>
          new Observable<HttpEvent<unknown>>((subscriber) => {
            if (request.url === '/token') refreshes.push(Date.now());
            subscriber.next(
              new HttpResponse({ status: 200, body: { access_token: `opaque-${++serial}`, expires_in: expiresIn() } }),
            );
            subscriber.complete();
          }),
      };
      TestBed.configureTestingModule({
        providers: [
          provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
          { provide: HttpBackend, useValue: backend },
          provideTokenRefresh(
            {
              refreshApiCall: () => inject(HttpClient).post('/token', null, { observe: 'response' }),
              extractToken: (response) => (response.body as { access_token: string }).access_token,
              extractExpiresIn: (response) => {
                const { expires_in } = response.body as { expires_in: unknown };
                if (expires_in === THROW) throw new Error('unreadable');
                return expires_in as number;
              },
            },
            withProactiveRefresh({ leadTime: 30 * SECOND }),
          ),
        ],
      });
      const state = TestBed.runInInjectionContext(() => injectTokenRefresh());
      const events: TokenRefreshEvent[] = [];
      state.events.subscribe((event) => events.push(event));
      const due = () => events.filter((event) => event.type === 'refreshScheduled').at(-1)?.at;
      return { state, refreshes, due };
    }

    it("plans from setToken's expiresIn, then from each refresh's extractExpiresIn, by the device's clock", async () => {
      const { state, refreshes, due } = setupOpaque(() => 300);
      state.setToken('opaque-signed-in', { expiresIn: 600 });
      // A second early (servers count whole seconds), then the lead time.
      expect(due()).toBe(START + 600 * SECOND - SECOND - 30 * SECOND);
      await advance(569 * SECOND - 1);
      expect(refreshes).toEqual([]);
      await advance(1);
      expect(refreshes).toEqual([START + 569 * SECOND]);
      expect(state.token()).toBe('opaque-1');
      // The refreshed token lives 300 s from when its request left (here, when it arrived too).
      expect(due()).toBe(START + 569 * SECOND + 300 * SECOND - SECOND - 30 * SECOND);
      await advance(269 * SECOND);
      expect(refreshes).toHaveLength(2);
    });

    it('caps the lead time of a token put back at start-up at a quarter of what is left of it', () => {
      const { state, due } = setupOpaque(() => 300);
      // A reload: the app puts back a 60-second token with 40 s left; the default-like lead (30 s) would
      // refresh at once, a quarter of the 39 s left (a second early) is 9.75 s.
      state.setToken('opaque-restored', { restored: true, expiresIn: 40 });
      expect(due()).toBe(START + 39 * SECOND - 9.75 * SECOND);
    });

    it("prefers a JWT's own exp to the expiresIn given with it", () => {
      const { state, due } = setupOpaque(() => 300);
      const iat = Math.floor(START / 1000);
      state.setToken(createTestJwt({ iat, exp: iat + 120 }), { expiresIn: 3600 });
      // exp - 30 s, with the second that iat may be late by.
      expect(due()).toBe(START + 120 * SECOND - 30 * SECOND - SECOND);
    });

    it('sets no timer for a lifetime that is missing, zero, negative, not a number, or thrown, and the refresh still succeeds', async () => {
      const values: unknown[] = [undefined, 0, -5, '300', NaN, Infinity, THROW];
      let index = 0;
      const { state, refreshes, due } = setupOpaque(() => values[index++]);
      state.setToken('opaque-signed-in');
      expect(due()).toBeNull();
      for (let attempt = 1; attempt <= values.length; attempt++) {
        await firstValueFrom(state.refresh());
        expect(state.token()).toBe(`opaque-${attempt}`);
        expect(due()).toBeNull();
      }
      await advance(60 * MINUTE);
      expect(refreshes).toHaveLength(values.length);
    });
  });

  describe('no timer', () => {
    it('for an opaque token, or a JWT without a numeric exp', async () => {
      const { server, state, due } = setup();
      state.setToken('an-opaque-token');
      expect(due()).toBeNull();
      state.setToken(createTestJwt({ exp: undefined }));
      expect(due()).toBeNull();
      state.setToken(createTestJwt({ exp: 'tomorrow' as unknown as number }));
      expect(due()).toBeNull();
      expect(jest.getTimerCount()).toBe(0);
      await advance(60 * MINUTE);
      expect(server.refreshes).toEqual([]);
    });

    it('after a logout', async () => {
      const { server, state, due } = setup();
      state.setToken(server.issue());
      state.setToken(null);
      expect(due()).toBeNull();
      expect(jest.getTimerCount()).toBe(0);
      await advance(60 * MINUTE);
      expect(server.refreshes).toEqual([]);
    });

    it('while disabled, and again after enable', async () => {
      const { server, state, due } = setup();
      state.setToken(server.issue());
      state.disable();
      expect(due()).toBeNull();
      await advance(20 * MINUTE);
      expect(server.refreshes).toEqual([]);
      state.enable();
      await advance(0);
      expect(server.refreshes).toEqual([START + 20 * MINUTE]);
    });

    it('after the application is destroyed, and no listener left behind', async () => {
      const listening = new Map<string, number>();
      for (const target of [document, window]) {
        const add: EventTarget['addEventListener'] = target.addEventListener.bind(target);
        const remove: EventTarget['removeEventListener'] = target.removeEventListener.bind(target);
        jest
          .spyOn(target, 'addEventListener')
          .mockImplementation((...args: Parameters<EventTarget['addEventListener']>) => {
            listening.set(args[0], (listening.get(args[0]) ?? 0) + 1);
            add(...args);
          });
        jest
          .spyOn(target, 'removeEventListener')
          .mockImplementation((...args: Parameters<EventTarget['removeEventListener']>) => {
            listening.set(args[0], (listening.get(args[0]) ?? 0) - 1);
            remove(...args);
          });
      }
      const { server, state } = setup();
      state.setToken(server.issue());
      expect(listening.get('visibilitychange')).toBe(1);
      TestBed.resetTestingModule();
      jest.restoreAllMocks();
      for (const type of ['visibilitychange', 'pageshow', 'online'])
        expect([type, listening.get(type)]).toEqual([type, 0]);
      expect(jest.getTimerCount()).toBe(0);
      sleep(20 * MINUTE);
      window.dispatchEvent(new Event('online'));
      setVisibility('visible');
      await advance(60 * MINUTE);
      expect(server.refreshes).toEqual([]);
    });

    it('on the server', async () => {
      const { server, state, due } = setup({}, undefined, 'server');
      state.setToken(server.issue());
      expect(due()).toBeUndefined();
      expect(jest.getTimerCount()).toBe(0);
    });

    it('for a token that lives less than minInterval: its 401 refreshes it, never a loop', async () => {
      const { server, state, get, due, events } = setup({ minInterval: 5000 }, (s) => (s.lifetimeSeconds = 3));
      state.setToken(server.issue());
      expect(due()).toBeNull();
      const answers: Promise<'ok' | number>[] = [];
      for (let tick = 0; tick < 120; tick++) {
        answers.push(get());
        await advance(500);
      }
      expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
      expect(startedAhead(events)).toBe(0);
      // One refresh per expiry wave: each 3-s token lasts 3 s plus the wait for its first 401.
      expect(server.refreshes.length).toBeLessThanOrEqual(20);
    });
  });

  describe('short tokens, with the default minInterval', () => {
    it('refreshes a 5-second token ahead of its expiry: steady calls meet no 401', async () => {
      const { server, state, get, due, events } = setup({}, (s) => (s.lifetimeSeconds = 5));
      state.setToken(server.issue());
      // Expiry read a second early (4 s in), a quarter of the lifetime before it: 2.75 s in, after the
      // least interval (half the lifetime, 2.5 s).
      expect(due()).toBe(START + 2750);
      const answers: Promise<'ok' | number>[] = [];
      for (let tick = 0; tick < 60; tick++) {
        answers.push(get());
        await advance(500);
      }
      expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
      expect(server.unauthorized).toBe(0);
      expect(server.refreshes.length).toBeGreaterThanOrEqual(10);
      expect(startedAhead(events)).toBe(server.refreshes.length);
    });

    it('plans an opaque token by its expires_in: 5 s is due 3 s in; 2 s gets no timer (at least 1 s between refreshes)', () => {
      TestBed.configureTestingModule({
        providers: [
          provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
          provideTokenRefresh(
            {
              refreshApiCall: () => inject(HttpClient).post('/token', null, { observe: 'response' }),
              extractToken: (response) => (response.body as { access_token: string }).access_token,
            },
            withProactiveRefresh(),
          ),
        ],
      });
      const state = TestBed.runInInjectionContext(() => injectTokenRefresh());
      const events: TokenRefreshEvent[] = [];
      state.events.subscribe((event) => events.push(event));
      const due = () => events.filter((event) => event.type === 'refreshScheduled').at(-1)?.at;
      state.setToken('opaque-5', { expiresIn: 5 });
      // Expires 4 s in (a second early), due a quarter of those 4 s before: after the 2-s floor.
      expect(due()).toBe(START + 3000);
      // Expires 1 s in: half of that would allow a refresh every half second; 1 s is the least.
      state.setToken('opaque-2', { expiresIn: 2 });
      expect(due()).toBeNull();
    });

    it('gives a 2-second token no timer: its 401 refreshes it, never a loop', async () => {
      const { server, state, get, due, events } = setup({}, (s) => (s.lifetimeSeconds = 2));
      state.setToken(server.issue());
      expect(due()).toBeNull();
      const answers: Promise<'ok' | number>[] = [];
      for (let tick = 0; tick < 40; tick++) {
        answers.push(get());
        await advance(500);
      }
      expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
      expect(startedAhead(events)).toBe(0);
      expect(server.refreshes.length).toBeLessThanOrEqual(10);
    });

    it('takes a minInterval that was given as it is, however short the token', () => {
      const { server, state, due } = setup({ minInterval: 5000 }, (s) => (s.lifetimeSeconds = 5));
      state.setToken(server.issue());
      expect(due()).toBeNull();
    });
  });

  it('refreshes no more often than minInterval, even when the server issues tokens that are due at once', async () => {
    const { server, state } = setup({ minInterval: 5000 }, (s) => (s.lifetimeSeconds = 7));
    state.setToken(server.issue());
    await advance(60_000);
    const gaps = server.refreshes.slice(1).map((at, index) => at - server.refreshes[index]);
    expect(server.refreshes.length).toBeGreaterThanOrEqual(10);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(5000);
  });

  it('falls back to the defaults for options of the wrong type in a production build (no refresh loop)', async () => {
    const globals = globalThis as { ngDevMode?: unknown };
    const devMode = globals.ngDevMode;
    globals.ngDevMode = false;
    let feature;
    try {
      feature = withProactiveRefresh({ leadTime: Number('60s'), minInterval: -5 });
    } finally {
      globals.ngDevMode = devMode;
    }
    const server = new ClockServer();
    setupAuth(server, feature).setToken(server.issue());
    await advance(MINUTE);
    expect(server.refreshes).toEqual([]);
    await advance(13 * MINUTE);
    expect(server.refreshes).toEqual([START + 14 * MINUTE - SECOND]);
  });

  it('rejects options of the wrong type in dev mode, naming the option', () => {
    expect(() => withProactiveRefresh({ leadTime: '60s' as unknown as number })).toThrow(
      'withProactiveRefresh: leadTime must be a finite number of milliseconds, 0 or more; got 60s',
    );
    expect(() => withProactiveRefresh({ minInterval: -1 })).toThrow('withProactiveRefresh: minInterval');
    expect(() => withProactiveRefresh(null as unknown as ProactiveRefreshOptions)).toThrow(
      'withProactiveRefresh: options must be an object, got null',
    );
  });

  it('works through provideAuth: the session store gets the new token, and a passing failure keeps the session', async () => {
    const server = new ClockServer();
    server.lifetimeSeconds = 120;
    const state = setupAuth(server);
    const events: TokenRefreshEvent[] = [];
    const tokens: (string | null)[] = [];
    state.events.subscribe((event) => {
      events.push(event);
      tokens.push(state.token());
    });
    state.setToken(server.issue());
    await advance(89_000 + server.latencyMs);
    expect(server.refreshes).toHaveLength(1);
    expect(sessionStorage.getItem('ngx-token-refresh.accessToken')).toBe(state.token());
    server.refreshStatus = 503;
    const kept = state.token();
    await advance(89_000 + server.latencyMs);
    expect(server.refreshes).toHaveLength(2);
    // The refresh ahead of expiry failed, and that changed nothing: the token was never cleared.
    expect(events.filter((event) => event.type === 'refreshFailed')).toEqual([
      expect.objectContaining({ type: 'refreshFailed', ahead: true }),
    ]);
    expect(tokens).not.toContain(null);
    expect(state.token()).toBe(kept);
    expect(sessionStorage.getItem('ngx-token-refresh.accessToken')).toBe(kept);
  });

  it('property: with any clock skew, lifetime, lead time and latency, steady calls never meet a 401 and each token is refreshed once, on time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -3600, max: 3600 }),
        fc.integer({ min: 20, max: 600 }),
        fc.integer({ min: 2, max: 180 }),
        fc.integer({ min: 0, max: 500 }),
        async (skewSeconds, lifetimeSeconds, leadSeconds, latencyMs) => {
          TestBed.resetTestingModule();
          jest.setSystemTime(START);
          const { server, state, get, events } = setup({ leadTime: leadSeconds * 1000 }, (s) => {
            s.skewMs = skewSeconds * 1000;
            s.lifetimeSeconds = lifetimeSeconds;
            s.latencyMs = latencyMs;
          });
          state.setToken(server.issue());
          const lead = Math.min(leadSeconds * 1000, (lifetimeSeconds * 1000) / 4);
          const step = Math.max(500, Math.floor((lifetimeSeconds * 1000) / 20));
          const answers: Promise<'ok' | number>[] = [];
          for (let at = 0; at < lifetimeSeconds * 2500; at += step) {
            answers.push(get());
            await advance(step);
          }
          await advance(latencyMs * 3);
          expect(new Set(await Promise.all(answers))).toEqual(new Set(['ok']));
          expect(server.unauthorized).toBe(0);
          expect(startedAhead(events)).toBe(server.refreshes.length);
          // Each refresh starts `lead` before the expiry of the token before it (which arrived one
          // latency after the previous refresh began), give or take the second `exp` is rounded to.
          let arrived = START;
          for (const at of server.refreshes) {
            const expected = arrived + lifetimeSeconds * 1000 - lead;
            expect(at).toBeGreaterThanOrEqual(expected - 1000);
            expect(at).toBeLessThanOrEqual(expected + 1000);
            arrived = at + latencyMs;
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);
});
