import {
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpInterceptorFn,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { EnvironmentInjector, ErrorHandler, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  TOKEN_REFRESH_RETRY_COUNT,
  TokenRefreshError,
  type TokenRefreshEvent,
  type TokenRefreshOptions,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
} from 'ngx-token-refresh';
import { EMPTY, NEVER, Observable, type Subscription, of, throwError } from 'rxjs';

import { UNAUTHORIZED, setupTokenRefresh, track } from './token-refresh-test-bed.spec-helper';

// Races and failure modes of refresh interceptors in the wild, each through the public API.
describe('token refresh under races', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  describe('stale 401', () => {
    it('repeats a request whose 401 arrives after the refresh with the new token, without another refresh', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      const early = track(http.get('/api/early'));
      const late = track(http.get('/api/late'));
      httpTesting.expectOne('/api/early').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
      httpTesting.expectOne('/api/early').flush('early');

      // Sent with the old token before the refresh, answered only now.
      httpTesting.expectOne('/api/late').flush(null, UNAUTHORIZED);

      const repeat = httpTesting.expectOne('/api/late');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer new');
      repeat.flush('late');
      expect(refreshCount()).toBe(1);
      expect([early.value, late.value]).toEqual(['early', 'late']);
    });

    it('hands a stale 401 to its caller when the refresh in between failed, without another refresh', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/early'));
      const late = track(http.get('/api/late'));
      httpTesting.expectOne('/api/early').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/api/late').flush({ own: true }, UNAUTHORIZED);

      expect((late.error as HttpErrorResponse).error).toEqual({ own: true });
      expect(refreshCount()).toBe(1);
    });

    it('repeats a 401 with a token set by setToken after the request left (e.g. a new login)', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh();
      track(http.get('/api/a'));
      state().setToken('logged-in-again');

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(httpTesting.expectOne('/api/a').request.headers.get('Authorization')).toBe('Bearer logged-in-again');
      expect(refreshCount()).toBe(0);
    });
  });

  describe('cancellation', () => {
    it('sends nothing for a cancelled waiter even when a finalizer that runs first ends the refresh', () => {
      const state = () => injectTokenRefresh({ injector: TestBed.inject(EnvironmentInjector) });
      // An interceptor before ours whose finalizer logs in: it runs before our own teardown.
      const loginOnCancel: HttpInterceptorFn = (request, next) =>
        new Observable<HttpEvent<unknown>>((subscriber) => {
          subscriber.add(() => state().setToken('from-finalizer'));
          next(request).subscribe(subscriber);
        });
      TestBed.configureTestingModule({
        providers: [
          provideHttpClient(withInterceptors([loginOnCancel, tokenRefreshInterceptor])),
          provideHttpClientTesting(),
          provideTokenRefresh({
            refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
            extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          }),
        ],
      });
      const httpTesting = TestBed.inject(HttpTestingController);
      const subscription = TestBed.inject(HttpClient).get('/api/a').subscribe();
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh');

      subscription.unsubscribe();

      expect(state().token()).toBe('from-finalizer');
      expect(httpTesting.match('/api/a')).toEqual([]);
    });

    it('keeps the refresh alive when the request that started it unsubscribes; the others get the new token', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      const starter = http.get('/api/starter').subscribe();
      const other = track(http.get('/api/other'));
      httpTesting.expectOne('/api/starter').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/other').flush(null, UNAUTHORIZED);

      starter.unsubscribe();

      const refresh = httpTesting.expectOne('/auth/refresh');
      expect(refresh.cancelled).toBe(false);
      refresh.flush({ accessToken: 'new' });
      httpTesting.expectNone('/api/starter');
      httpTesting.expectOne('/api/other').flush('other');
      expect(other.value).toBe('other');
      expect(refreshCount()).toBe(1);
    });

    it('never sends a queued request whose caller unsubscribed', () => {
      const { http, httpTesting } = setupTokenRefresh();
      track(http.get('/api/a'));
      const leaving = http.get('/api/leaving').subscribe();
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/leaving').flush(null, UNAUTHORIZED);

      leaving.unsubscribe();
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      httpTesting.expectNone('/api/leaving');
      httpTesting.expectOne('/api/a').flush('a');
    });

    it('never sends a held request whose caller unsubscribed', () => {
      const { http, httpTesting } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      const leaving = http.get('/api/held').subscribe();

      leaving.unsubscribe();
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      httpTesting.expectNone('/api/held');
      httpTesting.expectOne('/api/a').flush('a');
    });

    it('cancels a repeated request in flight when its caller unsubscribes', () => {
      const { http, httpTesting } = setupTokenRefresh();
      let subscription: Subscription | undefined = http.get('/api/a').subscribe();
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
      const repeat = httpTesting.expectOne('/api/a');

      subscription.unsubscribe();
      subscription = undefined;

      expect(repeat.cancelled).toBe(true);
    });
  });

  describe('no hangs', () => {
    it('fails only the caller whose repeat setAuthHeader cannot build; held and queued others go out', () => {
      const failure = new Error('cannot build');
      const { http, httpTesting } = setupTokenRefresh({
        setAuthHeader: (request, token) => {
          if (request.url.includes('bad')) throw failure;
          return request.clone({ setHeaders: { Authorization: `Bearer ${token}` } });
        },
      });
      const queuedBad = track(http.get('/api/queued-bad'));
      const queued = track(http.get('/api/queued'));
      httpTesting.expectOne('/api/queued-bad').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/queued').flush(null, UNAUTHORIZED);
      const heldBad = track(http.get('/api/held-bad'));
      const held = track(http.get('/api/held'));

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      expect(queuedBad.error).toBe(failure);
      expect(heldBad.error).toBe(failure);
      httpTesting.expectOne('/api/queued').flush('queued');
      httpTesting.expectOne('/api/held').flush('held');
      expect([queued.value, held.value]).toEqual(['queued', 'held']);
    });

    it.each<[string, Partial<TokenRefreshOptions>, (error: unknown) => void]>([
      [
        'the refresh Observable completes without a value',
        { refreshApiCall: () => EMPTY },
        (error) => expect(error).toEqual(expect.objectContaining({ name: 'TokenRefreshError', code: 'NoResponse' })),
      ],
      [
        'extractToken returns an empty string',
        { refreshApiCall: () => of(new HttpResponse({ body: {} })), extractToken: () => '' },
        (error) => expect((error as TokenRefreshError).code).toBe('InvalidToken'),
      ],
      [
        'extractToken returns something that is not a string',
        {
          refreshApiCall: () => of(new HttpResponse({ body: {} })),
          extractToken: () => undefined as unknown as string,
        },
        (error) => expect((error as TokenRefreshError).message).toMatch(/extractToken returned undefined/),
      ],
      [
        'extractToken returns a header value instead of a token',
        { refreshApiCall: () => of(new HttpResponse({ body: {} })), extractToken: () => 'Bearer abc' },
        (error) => expect((error as TokenRefreshError).code).toBe('InvalidToken'),
      ],
    ])('fails the refresh, once, when %s', (_, overrides, check) => {
      const onRefreshFailure = jest.fn();
      const { http, httpTesting } = setupTokenRefresh({ ...overrides, onRefreshFailure });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(result.error).toBeInstanceOf(TokenRefreshError);
      check(result.error);
      expect(onRefreshFailure).toHaveBeenCalledTimes(1);
      expect(onRefreshFailure).toHaveBeenCalledWith(result.error);
    });

    it('fails the refresh with the very error extractToken throws', () => {
      const thrown = new SyntaxError('body is HTML');
      const { http, httpTesting } = setupTokenRefresh({
        refreshApiCall: () => of(new HttpResponse({ body: '<html>' })),
        extractToken: () => {
          throw thrown;
        },
      });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(result.error).toBe(thrown);
    });

    it('fails a refresh that never answers once refreshTimeout has passed, and frees the lock', () => {
      jest.useFakeTimers();
      try {
        const onRefreshFailure = jest.fn();
        let calls = 0;
        const { http, httpTesting } = setupTokenRefresh({
          refreshTimeout: 5_000,
          onRefreshFailure,
          refreshApiCall: () => (++calls === 1 ? NEVER : of(new HttpResponse({ body: { accessToken: 'late' } }))),
        });
        const result = track(http.get('/api/a'));
        httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

        jest.advanceTimersByTime(4_999);
        expect(result.settled).toBe(0);
        jest.advanceTimersByTime(1);

        expect((result.error as TokenRefreshError).code).toBe('Timeout');
        expect(onRefreshFailure).toHaveBeenCalledTimes(1);
        track(http.get('/api/b'));
        httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);
        expect(httpTesting.expectOne('/api/b').request.headers.get('Authorization')).toBe('Bearer late');
      } finally {
        jest.useRealTimers();
      }
    });

    it('settles when the refresh answers synchronously (no waiter misses the outcome)', () => {
      const { http, httpTesting } = setupTokenRefresh({
        refreshApiCall: () => of(new HttpResponse({ body: { accessToken: 'sync' } })),
      });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/a').flush('a');

      expect(result.value).toBe('a');
    });
  });

  describe('requests started while a refresh is in flight', () => {
    it('holds them and sends them once, with the new token, without a second refresh', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      const during = track(http.get('/api/during'));

      httpTesting.expectNone('/api/during');
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      const sent = httpTesting.expectOne('/api/during');
      expect(sent.request.headers.get('Authorization')).toBe('Bearer new');
      expect(sent.request.context.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(0);
      sent.flush('during');
      httpTesting.expectOne('/api/a').flush('a');
      expect(during.value).toBe('during');
      expect(refreshCount()).toBe(1);
    });

    it('starts a new refresh, rather than repeating with the same token, when the new token it was held for is rejected', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      const held = track(http.get('/api/held'));
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
      httpTesting.expectOne('/api/a').flush('a');

      httpTesting.expectOne('/api/held').flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(2);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'newer' });
      const repeat = httpTesting.expectOne('/api/held');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer newer');
      repeat.flush('held');
      expect(held.value).toBe('held');
    });

    it('sends them unchanged after a failed refresh, and a 401 then reaches the caller without a refresh', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      const publicCall = track(http.get('/api/public'));
      const privateCall = track(http.get('/api/private'));

      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      const sentPublic = httpTesting.expectOne('/api/public');
      expect(sentPublic.request.headers.has('Authorization')).toBe(false);
      sentPublic.flush('open to all');
      httpTesting.expectOne('/api/private').flush(null, UNAUTHORIZED);
      expect(publicCall.value).toBe('open to all');
      expect((privateCall.error as HttpErrorResponse).status).toBe(401);
      expect(refreshCount()).toBe(1);
    });
  });

  describe('setToken during a refresh', () => {
    it('lets a setToken made while refreshApiCall runs win over a refresh that answers at once', () => {
      const onRefreshSuccess = jest.fn();
      let state: () => ReturnType<typeof injectTokenRefresh> = () => {
        throw new Error('not set up');
      };
      const setup = setupTokenRefresh({
        onRefreshSuccess,
        refreshApiCall: () => {
          state().setToken('from-the-app');
          return of(new HttpResponse({ body: { accessToken: 'refreshed' } }));
        },
      });
      state = setup.state;
      const result = track(setup.http.get('/api/a'));

      setup.httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(state().token()).toBe('from-the-app');
      expect(onRefreshSuccess).not.toHaveBeenCalled();
      const repeat = setup.httpTesting.expectOne('/api/a');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer from-the-app');
      repeat.flush('a');
      expect(result.value).toBe('a');
      expect(setup.refreshCount()).toBe(1);
    });

    it('ends the refresh in favour of the token set: waiters repeat with it, no callback runs', () => {
      const onRefreshSuccess = jest.fn();
      const { http, httpTesting, state } = setupTokenRefresh({ onRefreshSuccess });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      const refresh = httpTesting.expectOne('/auth/refresh');

      state().setToken('from-login');

      expect(refresh.cancelled).toBe(true);
      expect(state().isRefreshing()).toBe(false);
      const repeat = httpTesting.expectOne('/api/a');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer from-login');
      repeat.flush('a');
      expect(result.value).toBe('a');
      expect(onRefreshSuccess).not.toHaveBeenCalled();
    });

    it('after setToken(null) (logout) rejects the waiters with their own 401 and keeps the token cleared', () => {
      const onRefreshSuccess = jest.fn();
      const { http, httpTesting, state } = setupTokenRefresh({ onRefreshSuccess });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush({ own: true }, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh');

      state().setToken(null);

      expect((result.error as HttpErrorResponse).error).toEqual({ own: true });
      expect(state().token()).toBeNull();
      expect(onRefreshSuccess).not.toHaveBeenCalled();
    });
  });

  describe('setToken from onRefreshSuccess', () => {
    it('repeats the waiters with the token the callback set instead of the refreshed one', () => {
      const { http, httpTesting, state } = setupTokenRefresh({
        onRefreshSuccess: () => state().setToken('from-callback'),
      });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'refreshed' });

      const repeat = httpTesting.expectOne('/api/a');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer from-callback');
      repeat.flush('a');
      expect(result.value).toBe('a');
    });

    it('after setToken(null) there, repeats nothing: the waiters get their own 401, refresh() callers Cancelled', () => {
      const { http, httpTesting, state } = setupTokenRefresh({ onRefreshSuccess: () => state().setToken(null) });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush({ own: true }, UNAUTHORIZED);
      const manual = track(state().refresh());

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'refreshed' });

      httpTesting.expectNone('/api/a');
      expect((result.error as HttpErrorResponse).error).toEqual({ own: true });
      expect((manual.error as TokenRefreshError).code).toBe('Cancelled');
      expect(state().token()).toBeNull();
    });
  });

  describe('refresh() on demand', () => {
    it('shares one refresh call with the 401s in flight and emits the new token', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      const manual = track(state().refresh());
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'shared' });

      expect(manual.value).toBe('shared');
      expect(manual.settled).toBe(1);
      expect(refreshCount()).toBe(1);
      httpTesting.expectOne('/api/a').flush('a');
    });

    it('starts a refresh when idle, holds requests meanwhile, and fails with the very refresh error', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh();
      const manual = track(state().refresh());
      expect(refreshCount()).toBe(1);
      const held = track(http.get('/api/held'));
      httpTesting.expectNone('/api/held');

      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      expect((manual.error as HttpErrorResponse).url).toBe('/auth/refresh');
      httpTesting.expectOne('/api/held').flush('held');
      expect(held.value).toBe('held');
    });

    it('does nothing until subscribed, and keeps refreshing when its caller unsubscribes', () => {
      const { httpTesting, refreshCount, state } = setupTokenRefresh();
      const lazy = state().refresh();
      expect(refreshCount()).toBe(0);

      lazy.subscribe().unsubscribe();

      const refresh = httpTesting.expectOne('/auth/refresh');
      expect(refresh.cancelled).toBe(false);
      refresh.flush({ accessToken: 'kept' });
      expect(state().token()).toBe('kept');
    });

    it('fails with TokenRefreshError Cancelled when a logout ends the refresh', () => {
      const { httpTesting, state } = setupTokenRefresh();
      const manual = track(state().refresh());
      httpTesting.expectOne('/auth/refresh');

      state().setToken(null);

      expect((manual.error as TokenRefreshError).code).toBe('Cancelled');
      expect((manual.error as TokenRefreshError).message).toBe('ngx-token-refresh: setToken(null) ended the refresh');
    });

    it('keeps the code, and names it as the message, in production mode', () => {
      const { httpTesting, state } = setupTokenRefresh();
      const gate = state();
      const manual = track(gate.refresh());
      httpTesting.expectOne('/auth/refresh');

      const global = globalThis as { ngDevMode?: unknown };
      const devMode = global.ngDevMode;
      global.ngDevMode = false;
      try {
        gate.setToken(null);
      } finally {
        global.ngDevMode = devMode;
      }

      expect(manual.error).toBeInstanceOf(TokenRefreshError);
      expect((manual.error as TokenRefreshError).code).toBe('Cancelled');
      expect((manual.error as TokenRefreshError).message).toBe('ngx-token-refresh: Cancelled');
    });
  });

  describe('synchronous answers', () => {
    it('repeats a 401 for a token replaced while the queue was being released, without a third refresh', () => {
      // t1 is rejected at once; from the second refresh on the newest token works. Every answer is
      // synchronous, so the second refresh starts and ends inside the release of the first.
      let refreshes = 0;
      let releaseFirst: ((response: HttpResponse<unknown>) => void) | undefined;
      const parked: (() => void)[] = [];
      const backend: HttpInterceptorFn = (request) => {
        const auth = request.headers.get('Authorization');
        if (auth === null) {
          return new Observable<HttpEvent<unknown>>((subscriber) => {
            parked.push(() => subscriber.error(new HttpErrorResponse({ ...UNAUTHORIZED, url: request.url })));
          });
        }
        return refreshes >= 2 && auth === `Bearer t${refreshes}`
          ? of(new HttpResponse({ status: 200, body: request.url }))
          : throwError(() => new HttpErrorResponse({ ...UNAUTHORIZED, url: request.url }));
      };
      const { http } = setupTokenRefresh(
        {
          maxRetryCount: 2,
          refreshApiCall: () => {
            const n = ++refreshes;
            if (n > 1) return of(new HttpResponse({ body: { accessToken: `t${n}` } }));
            return new Observable<HttpResponse<unknown>>((subscriber) => {
              releaseFirst = (response) => subscriber.next(response);
            });
          },
        },
        [backend],
      );
      const a = track(http.get('/api/a'));
      const b = track(http.get('/api/b'));
      for (const fail of parked) fail();

      releaseFirst?.(new HttpResponse({ body: { accessToken: 't1' } }));

      expect([a.value, b.value]).toEqual(['/api/a', '/api/b']);
      expect(refreshes).toBe(2);
    });

    it('lets onRefreshSuccess send requests through the interceptor when the refresh answered synchronously', () => {
      const seen: (string | null)[] = [];
      const { http, httpTesting } = setupTokenRefresh({
        attachToken: true,
        refreshApiCall: () => of(new HttpResponse({ body: { accessToken: 'sync' } })),
        onRefreshSuccess: () => void inject(HttpClient).get('/api/profile').subscribe(),
      });
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      seen.push(httpTesting.expectOne('/api/profile').request.headers.get('Authorization'));
      httpTesting.expectOne('/api/a').flush('a');

      expect(seen).toEqual(['Bearer sync']);
    });
  });

  describe('observable state', () => {
    it('shows a refresh in flight through isRefreshing and the current token through token', () => {
      const { http, httpTesting, state } = setupTokenRefresh();
      const refresh = state();
      expect(refresh.isRefreshing()).toBe(false);
      expect(refresh.token()).toBeNull();
      track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      expect(refresh.isRefreshing()).toBe(true);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      expect(refresh.isRefreshing()).toBe(false);
      expect(refresh.token()).toBe('new');
      httpTesting.expectOne('/api/a').flush('a');
    });

    it('clears the token after a failed refresh', () => {
      const { http, httpTesting, state } = setupTokenRefresh();
      state().setToken('old');
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      expect(state().token()).toBeNull();
    });

    it('emits the story of a refresh as events, with the requests as the caller made them (no token)', () => {
      const { http, httpTesting, state } = setupTokenRefresh({ attachToken: true });
      state().setToken('old-secret');
      const events: TokenRefreshEvent[] = [];
      state().events.subscribe((event) => events.push(event));
      track(http.get('/api/a'));
      track(http.get('/api/b'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      track(http.get('/api/c'));
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'secret' });
      for (const url of ['/api/a', '/api/b', '/api/c']) httpTesting.expectOne(url).flush(url);

      expect(events.map((event) => `${event.type} ${'request' in event ? event.request?.url : ''}`.trim())).toEqual([
        'requestQueued /api/a',
        'refreshStarted /api/a',
        'requestHeld /api/c',
        'requestQueued /api/b',
        'refreshSucceeded',
        'requestRetried /api/a',
        'requestRetried /api/b',
      ]);
      for (const event of events) {
        if ('request' in event) expect(event.request?.headers.keys()).toEqual([]);
      }
    });

    it('reports a throwing callback to the ErrorHandler and still releases the queue', () => {
      const failure = new Error('store is gone');
      const { http, httpTesting } = setupTokenRefresh({
        onRefreshSuccess: () => {
          throw failure;
        },
      });
      const handleError = jest.spyOn(TestBed.inject(ErrorHandler), 'handleError').mockImplementation(() => undefined);
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
      httpTesting.expectOne('/api/a').flush('a');

      expect(handleError).toHaveBeenCalledWith(failure);
      expect(result.value).toBe('a');
    });
  });
});
