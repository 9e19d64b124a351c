import {
  HttpBackend,
  HttpClient,
  HttpContext,
  HttpErrorResponse,
  type HttpInterceptorFn,
  HttpResponse,
} from '@angular/common/http';
import { HttpTestingController } from '@angular/common/http/testing';
import { inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  SKIP_TOKEN_REFRESH,
  TOKEN_REFRESH_RETRY_COUNT,
  type TokenRefreshOptions,
  provideTokenRefresh,
} from 'ngx-token-refresh';
import { firstValueFrom, of, tap, throwError } from 'rxjs';

import { UNAUTHORIZED, setupTokenRefresh, track } from './token-refresh-test-bed.spec-helper';

describe('tokenRefreshInterceptor', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  describe('refresh lock', () => {
    it('starts one refresh on a 401 and repeats the request with the new token, marked as retried', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      const result = track(http.get('/api/users'));

      httpTesting.expectOne('/api/users').flush(null, UNAUTHORIZED);
      expect(refreshCount()).toBe(1);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new-token' });

      const repeat = httpTesting.expectOne('/api/users');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer new-token');
      expect(repeat.request.context.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(1);
      repeat.flush([{ id: 1 }]);
      expect(result.value).toEqual([{ id: 1 }]);
    });

    it('queues a 401 that arrives while refreshing instead of repeating it at once', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/a'));
      track(http.get('/api/b'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(1);
      httpTesting.expectNone('/api/a');
      httpTesting.expectNone('/api/b');
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new-token' });
      httpTesting.expectOne('/api/a').flush('a');
      httpTesting.expectOne('/api/b').flush('b');
    });

    it('empties the queue after a refresh, so a later 401 starts a new refresh', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'first' });
      httpTesting.expectOne('/api/a').flush('a');

      track(http.get('/api/b'));
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'second' });
      expect(httpTesting.expectOne('/api/b').request.headers.get('Authorization')).toBe('Bearer second');
      expect(refreshCount()).toBe(2);
    });

    it('rejects every queued request and the current one with the refresh error when the refresh fails', () => {
      const onRefreshFailure = jest.fn();
      const { http, httpTesting } = setupTokenRefresh({ onRefreshFailure });
      const results = ['/api/a', '/api/b', '/api/c'].map((url) => track(http.get(url)));
      for (const url of ['/api/a', '/api/b', '/api/c']) httpTesting.expectOne(url).flush(null, UNAUTHORIZED);

      httpTesting
        .expectOne('/auth/refresh')
        .flush({ error: { code: 'Expired' } }, { status: 401, statusText: 'Unauthorized' });

      const refreshError = onRefreshFailure.mock.calls[0]?.[0] as HttpErrorResponse;
      expect(refreshError).toBeInstanceOf(HttpErrorResponse);
      expect(refreshError.url).toBe('/auth/refresh');
      for (const result of results) expect(result.error).toBe(refreshError);
      expect(onRefreshFailure).toHaveBeenCalledTimes(1);
    });

    it('rejects a request already retried maxRetryCount times with its own latest error', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new-token' });

      httpTesting.expectOne('/api/a').flush({ reason: 'still no' }, UNAUTHORIZED);

      expect(result.error).toBeInstanceOf(HttpErrorResponse);
      expect((result.error as HttpErrorResponse).error).toEqual({
        reason: 'still no',
      });
      expect(refreshCount()).toBe(1);
    });

    it('sends a 401 from the refresh request itself to the failure path without a second refresh', () => {
      const onRefreshFailure = jest.fn();
      const { http, httpTesting, refreshCount } = setupTokenRefresh({ onRefreshFailure });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(1);
      expect(onRefreshFailure).toHaveBeenCalledTimes(1);
      expect(result.error).toBe(onRefreshFailure.mock.calls[0]?.[0]);
    });
  });

  describe('concurrent failures', () => {
    it('turns N concurrent 401s into exactly one refresh and repeats all N (the current one and the queued) with the new token', () => {
      const onRefreshSuccess = jest.fn();
      const setAuthHeader = jest.fn((request, token: string) => request.clone({ setHeaders: { 'X-Token': token } }));
      const { http, httpTesting, refreshCount } = setupTokenRefresh({
        onRefreshSuccess,
        setAuthHeader,
      });
      const n = 25;
      const results = Array.from({ length: n }, (_, i) => track(http.get(`/api/item/${i}`)));
      for (let i = 0; i < n; i++) httpTesting.expectOne(`/api/item/${i}`).flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'fresh' });

      for (let i = 0; i < n; i++) {
        const repeat = httpTesting.expectOne(`/api/item/${i}`);
        expect(repeat.request.headers.get('X-Token')).toBe('fresh');
        repeat.flush(i);
      }
      expect(results.map((result) => result.value)).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(refreshCount()).toBe(1);
      expect(setAuthHeader).toHaveBeenCalledTimes(n);
      expect(onRefreshSuccess).toHaveBeenCalledTimes(1);
      expect(onRefreshSuccess).toHaveBeenCalledWith('fresh', expect.any(HttpResponse));
    });

    it('sends nothing for a queued request its caller cancels while the queue is being released', () => {
      // Repeats of /api/a are answered at once, so the app reacts while the queue is still being released.
      const answerRepeatsOfA: HttpInterceptorFn = (request, next) =>
        request.url === '/api/a' && request.context.get(TOKEN_REFRESH_RETRY_COUNT) > 0
          ? of(new HttpResponse({ status: 200, body: 'a' }))
          : next(request);
      const { http, httpTesting } = setupTokenRefresh({}, [answerRepeatsOfA]);
      const b = jest.fn();
      const subscriptionB = http.get('/api/b').subscribe({ next: b, error: b, complete: b });
      const a = track(http.get('/api/a').pipe(tap(() => subscriptionB.unsubscribe())));
      // a queues first, so it is released first.
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'fresh' });

      expect(a.value).toBe('a');
      httpTesting.expectNone('/api/b');
      expect(b).not.toHaveBeenCalled();
    });
  });

  describe('refresh failure', () => {
    it.each([
      [
        'an error status',
        (refresh: ReturnType<HttpTestingController['expectOne']>) => refresh.flush(null, SERVER_ERROR),
      ],
      [
        'a network error (status 0)',
        (refresh: ReturnType<HttpTestingController['expectOne']>) => refresh.error(new ProgressEvent('error')),
      ],
    ])('rejects every waiter with the very error object of %s, once, and frees the lock', (_, fail) => {
      const onRefreshFailure = jest.fn();
      const { http, httpTesting, refreshCount } = setupTokenRefresh({ onRefreshFailure });
      const results = [track(http.get('/api/a')), track(http.get('/api/b'))];
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);

      fail(httpTesting.expectOne('/auth/refresh'));

      const error = onRefreshFailure.mock.calls[0]?.[0];
      expect(error).toBeInstanceOf(HttpErrorResponse);
      expect(results[0]?.error).toBe(error);
      expect(results[1]?.error).toBe(error);
      expect(onRefreshFailure).toHaveBeenCalledTimes(1);
      expect(refreshCount()).toBe(1);

      track(http.get('/api/c'));
      httpTesting.expectOne('/api/c').flush(null, UNAUTHORIZED);
      expect(refreshCount()).toBe(2);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'next' });
      httpTesting.expectOne('/api/c').flush('c');
    });

    it('rejects every waiter with the error refreshApiCall throws', () => {
      const thrown = new Error('no refresh token stored');
      const onRefreshFailure = jest.fn();
      const { http, httpTesting } = setupTokenRefresh({
        onRefreshFailure,
        refreshApiCall: () => {
          throw thrown;
        },
      });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(result.error).toBe(thrown);
      expect(onRefreshFailure).toHaveBeenCalledWith(thrown);
    });

    it('rejects every waiter with a non-HTTP error the refresh Observable emits', () => {
      const failure = new TypeError('storage unavailable');
      const { http, httpTesting } = setupTokenRefresh({
        refreshApiCall: () => throwError(() => failure),
      });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(result.error).toBe(failure);
    });

    it("runs onRefreshFailure in the application's injection context", () => {
      let injected: HttpClient | undefined;
      const { http, httpTesting } = setupTokenRefresh({ onRefreshFailure: () => (injected = inject(HttpClient)) });
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      expect(injected).toBe(http);
    });
  });

  describe('the refresh request', () => {
    it('is not caught by the interceptor when refreshApiCall uses the same intercepted HttpClient', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh({ attachToken: true });
      state().setToken('rejected');
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      const refresh = httpTesting.expectOne('/auth/refresh');
      expect(refresh.request.headers.has('Authorization')).toBe(false);
      expect(refresh.request.withCredentials).toBe(true);
      refresh.flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(1);
      expect((result.error as HttpErrorResponse).url).toBe('/auth/refresh');
    });

    it('is not caught when refreshApiCall bypasses interceptors through HttpBackend', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh({
        refreshApiCall: () =>
          new HttpClient(inject(HttpBackend)).post('/auth/refresh', null, {
            observe: 'response',
          }),
      });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(1);
      expect((result.error as HttpErrorResponse).status).toBe(401);
    });

    it('is recognised when refreshApiCall is an async function returning a Promise', async () => {
      const { http, httpTesting } = setupTokenRefresh({
        refreshApiCall: async () => {
          const response = await firstValueFrom(
            inject(HttpClient).post('/auth/refresh', null, {
              observe: 'response',
            }),
          );
          return response;
        },
      });
      const result = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'from-promise' });
      await Promise.resolve();
      await Promise.resolve();

      const repeat = httpTesting.expectOne('/api/a');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer from-promise');
      repeat.flush('a');
      expect(result.value).toBe('a');
    });
  });

  describe('maxRetryCount', () => {
    it('lets a request be repeated up to maxRetryCount times, then hands the caller its latest error', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh({ maxRetryCount: 3 });
      const result = track(http.get('/api/a'));
      let sent = 0;
      for (let attempt = 0; attempt <= 3; attempt++) {
        const request = httpTesting.expectOne('/api/a');
        expect(request.request.context.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(attempt);
        sent++;
        request.flush({ attempt }, UNAUTHORIZED);
        if (attempt < 3) httpTesting.expectOne('/auth/refresh').flush({ accessToken: `token-${attempt}` });
      }

      httpTesting.expectNone('/api/a');
      expect(sent).toBe(4);
      expect(refreshCount()).toBe(3);
      expect((result.error as HttpErrorResponse).error).toEqual({ attempt: 3 });
    });

    it('with 0 never refreshes and passes every 401 to the caller', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh({ maxRetryCount: 0 });
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect(refreshCount()).toBe(0);
      expect((result.error as HttpErrorResponse).status).toBe(401);
    });
  });

  describe('errors that are not for the refresh logic', () => {
    it.each([403, 404, 500])('passes a %s to the caller unchanged, without a refresh', (status) => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh();
      const result = track(http.get('/api/a'));

      httpTesting.expectOne('/api/a').flush({ status }, { status, statusText: 'Nope' });

      expect((result.error as HttpErrorResponse).status).toBe(status);
      expect(refreshCount()).toBe(0);
    });

    it('passes the very same error object of a non-HTTP error to the caller', () => {
      const failure = new Error('serializer broke');
      const failing: HttpInterceptorFn = () => throwError(() => failure);
      const { http, refreshCount } = setupTokenRefresh({}, [failing]);
      const result = track(http.get('/api/a'));

      expect(result.error).toBe(failure);
      expect(refreshCount()).toBe(0);
    });

    it('refreshes on the statuses given in refreshOnStatus only', () => {
      const { http, httpTesting, refreshCount } = setupTokenRefresh({ refreshOnStatus: [419] });
      const unauthorized = track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      expect(refreshCount()).toBe(0);
      expect((unauthorized.error as HttpErrorResponse).status).toBe(401);

      track(http.get('/api/b'));
      httpTesting.expectOne('/api/b').flush(null, { status: 419, statusText: 'Session expired' });
      expect(refreshCount()).toBe(1);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'x' });
      httpTesting.expectOne('/api/b').flush('b');
    });
  });

  describe('disable', () => {
    it('passes every request and response through untouched after disable(), until enable()', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh({
        attachToken: true,
      });
      track(http.get('/api/a'));
      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'kept' });
      httpTesting.expectOne('/api/a').flush('a');

      state().disable();
      const passed = track(http.get('/api/b'));
      const plain = httpTesting.expectOne('/api/b');
      expect(plain.request.headers.has('Authorization')).toBe(false);
      plain.flush(null, UNAUTHORIZED);
      expect((passed.error as HttpErrorResponse).status).toBe(401);
      expect(refreshCount()).toBe(1);

      state().enable();
      track(http.get('/api/c'));
      expect(httpTesting.expectOne('/api/c').request.headers.get('Authorization')).toBe('Bearer kept');
    });

    it('passes a 401 through when disable() happens while the request is in flight', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh();
      const result = track(http.get('/api/a'));
      state().disable();

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);

      expect((result.error as HttpErrorResponse).status).toBe(401);
      expect(refreshCount()).toBe(0);
    });
  });

  describe('per-request control', () => {
    it('passes a request marked with SKIP_TOKEN_REFRESH through: no token, no refresh on 401', () => {
      const { http, httpTesting, refreshCount, state } = setupTokenRefresh({
        attachToken: true,
      });
      state().setToken('current');
      const result = track(http.post('/auth/login', {}, { context: new HttpContext().set(SKIP_TOKEN_REFRESH, true) }));

      const login = httpTesting.expectOne('/auth/login');
      expect(login.request.headers.has('Authorization')).toBe(false);
      login.flush(null, UNAUTHORIZED);

      expect((result.error as HttpErrorResponse).status).toBe(401);
      expect(refreshCount()).toBe(0);
    });

    it('marks repeats with TOKEN_REFRESH_RETRY_COUNT on a copy, leaving a shared context untouched', () => {
      const { http, httpTesting } = setupTokenRefresh();
      const shared = new HttpContext();
      track(http.get('/api/a', { context: shared }));

      const original = httpTesting.expectOne('/api/a');
      expect(original.request.context.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(0);
      original.flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'x' });

      expect(httpTesting.expectOne('/api/a').request.context.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(1);
      expect(shared.get(TOKEN_REFRESH_RETRY_COUNT)).toBe(0);
    });
  });

  describe('attachToken', () => {
    it('attaches the current token to outgoing requests by default', () => {
      const { http, httpTesting, state } = setupTokenRefresh();
      state().setToken('abc');
      track(http.get('/api/a'));
      expect(httpTesting.expectOne('/api/a').request.headers.get('Authorization')).toBe('Bearer abc');
    });

    it('sends requests without a token while none is known', () => {
      const { http, httpTesting } = setupTokenRefresh();
      track(http.get('/api/a'));
      expect(httpTesting.expectOne('/api/a').request.headers.has('Authorization')).toBe(false);
    });

    it('leaves outgoing requests alone with attachToken: false', () => {
      const { http, httpTesting, state } = setupTokenRefresh({ attachToken: false });
      state().setToken('abc');
      track(http.get('/api/a'));
      expect(httpTesting.expectOne('/api/a').request.headers.has('Authorization')).toBe(false);
    });
  });
});

describe('provideTokenRefresh options', () => {
  it('accepts an origin written with its default port or a trailing slash', () => {
    const create = () =>
      provideTokenRefresh({
        refreshApiCall: () => throwError(() => new Error('unused')),
        extractToken: () => 'token',
        allowedOrigins: ['https://api.example.com:443', 'https://API.example.com/', 'http://localhost:3000'],
        refreshTimeout: Infinity,
      });
    expect(create).not.toThrow();
  });

  const refreshApiCall = () => throwError(() => new Error('unused'));
  const extractToken = () => 'token';

  it.each<[string, Partial<Record<keyof TokenRefreshOptions, unknown>>, RegExp]>([
    ['a missing refreshApiCall', { extractToken }, /refreshApiCall is required/],
    ['a missing extractToken', { refreshApiCall }, /extractToken is required/],
    [
      'a negative maxRetryCount',
      { refreshApiCall, extractToken, maxRetryCount: -1 },
      /maxRetryCount must be a whole number/,
    ],
    ['a fractional maxRetryCount', { refreshApiCall, extractToken, maxRetryCount: 1.5 }, /maxRetryCount/],
    [
      'an empty refreshOnStatus',
      { refreshApiCall, extractToken, refreshOnStatus: [] },
      /refreshOnStatus must be a non-empty array/,
    ],
    [
      'a status that is not one',
      { refreshApiCall, extractToken, refreshOnStatus: [4010] },
      /4010, which is not an HTTP status/,
    ],
    ['a zero refreshTimeout', { refreshApiCall, extractToken, refreshTimeout: 0 }, /refreshTimeout/],
    [
      'a URL instead of an origin',
      {
        refreshApiCall,
        extractToken,
        allowedOrigins: ['https://api.example.com/v1'],
      },
      /not an origin/,
    ],
    [
      'a plain-http origin',
      { refreshApiCall, extractToken, allowedOrigins: ['http://api.example.com'] },
      /never receive a token/,
    ],
    ['an unanchored pattern', { refreshApiCall, extractToken, allowedOrigins: [/api\.example\.com/] }, /anchor/],
    ['a wildcard origin', { refreshApiCall, extractToken, allowedOrigins: ['https://*.example.com'] }, /wildcards/],
    [
      'a refreshTimeout setTimeout cannot hold',
      { refreshApiCall, extractToken, refreshTimeout: 2 ** 31 },
      /refreshTimeout/,
    ],
    [
      'a setAuthHeader that is not a function',
      { refreshApiCall, extractToken, setAuthHeader: 'Bearer' },
      /setAuthHeader must be a function/,
    ],
  ])('throws a clear error naming the package for %s', (_, options, message) => {
    const create = () => provideTokenRefresh(options as unknown as TokenRefreshOptions);
    expect(create).toThrow(/^ngx-token-refresh: /);
    expect(create).toThrow(message);
  });
});

const SERVER_ERROR = { status: 500, statusText: 'Internal Server Error' };
