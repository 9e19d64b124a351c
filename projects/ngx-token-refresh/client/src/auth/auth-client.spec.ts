import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, type Routes, provideRouter } from '@angular/router';
import { SKIP_TOKEN_REFRESH, parseJwtClaims, tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import {
  ApiError,
  AuthClient,
  type AuthConfig,
  type RefreshTokenStore,
  provideAuth,
  safeReturnUrl,
} from 'ngx-token-refresh/client';
import { createTestJwt } from 'ngx-token-refresh/testing';
import type { Observable } from 'rxjs';

describe('AuthClient', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.restoreAllMocks();
    sessionStorage.clear();
    localStorage.clear();
  });

  describe('login', () => {
    it('posts the credentials to {baseUrl}/login with cookies, without the current token', () => {
      const { auth, httpTesting } = setup({ baseUrl: '/identity' });
      signIn(auth, httpTesting, createTestJwt(), '/identity');

      track(auth.login({ username: 'ada', password: 'secret' }));

      const login = httpTesting.expectOne('/identity/login');
      expect(login.request.method).toBe('POST');
      expect(login.request.body).toEqual({ username: 'ada', password: 'secret' });
      expect(login.request.withCredentials).toBe(true);
      expect(login.request.headers.has('Authorization')).toBe(false);
      expect(login.request.context.get(SKIP_TOKEN_REFRESH)).toBe(true);
      login.flush({ accessToken: createTestJwt() });
    });

    it('never starts a refresh when the login answers 401, even with a session', () => {
      const { auth, httpTesting } = setup({ onSessionExpired: jest.fn() });
      signIn(auth, httpTesting);
      const result = track(auth.login({ username: 'ada', password: 'wrong' }));

      httpTesting.expectOne('/auth/login').flush(errorBody('InvalidCredentials'), UNAUTHORIZED);

      httpTesting.expectNone('/auth/refresh');
      expect(result.error).toBeInstanceOf(ApiError);
    });

    it('starts the session with the token: accessToken, isAuthenticated and expiresAt from its exp', () => {
      const { auth, httpTesting } = setup();
      const token = createTestJwt({ exp: 2_000_000_000 });
      const result = track(auth.login({ username: 'ada', password: 'secret' }));

      httpTesting.expectOne('/auth/login').flush({ accessToken: token });

      expect(result.settled).toBe('complete');
      expect(auth.accessToken()).toBe(token);
      expect(auth.isAuthenticated()).toBe(true);
      expect(auth.expiresAt()).toEqual(new Date(2_000_000_000 * 1000));
    });

    it('fails with an ApiError carrying the code of the error body on 401, and starts no session', () => {
      const { auth, httpTesting } = setup();
      const result = track(auth.login({ username: 'ada', password: 'wrong' }));

      httpTesting
        .expectOne('/auth/login')
        .flush(errorBody('InvalidCredentials', 'Wrong user name or password.'), UNAUTHORIZED);

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({
        status: 401,
        code: 'InvalidCredentials',
        message: 'Wrong user name or password.',
      });
      expect(auth.isAuthenticated()).toBe(false);
      expect(auth.accessToken()).toBeNull();
      expect(auth.expiresAt()).toBeNull();
    });

    it.each<[string, unknown]>([
      ['an empty object', {}],
      ['an empty accessToken', { accessToken: '' }],
      ['a numeric accessToken', { accessToken: 42 }],
      ['no body', null],
      ['an HTML page', '<html><body>Welcome</body></html>'],
    ])('fails with InvalidResponse on a 200 with %s, and starts no session', (_, body) => {
      const { auth, httpTesting } = setup();
      const result = track(auth.login({ username: 'ada', password: 'secret' }));

      httpTesting.expectOne('/auth/login').flush(body as object, { status: 200, statusText: 'OK' });

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 200, code: 'InvalidResponse' });
      expect(auth.isAuthenticated()).toBe(false);
    });

    it.each([
      ['a Bearer prefix', 'Bearer abc.def.ghi'],
      ['a line break', 'abc.def.ghi\r\nX-Injected: 1'],
    ])(
      'fails with InvalidResponse on an accessToken holding %s, as a refresh does, and starts no session',
      (_, token) => {
        const { auth, httpTesting } = setup();
        const result = track(auth.login({ username: 'ada', password: 'secret' }));

        httpTesting.expectOne('/auth/login').flush({ accessToken: token });

        expect(result.error).toBeInstanceOf(ApiError);
        expect(result.error).toMatchObject({ code: 'InvalidResponse' });
        expect(auth.isAuthenticated()).toBe(false);
      },
    );

    it.each<[string, unknown]>([
      ['a numeric password', { username: 'ada', password: 1234 }],
      ['a missing username', { password: 'secret' }],
      ['null', null],
      ['a username object', { username: { $ne: '' }, password: 'secret' }],
    ])('rejects %s with InvalidArgument and sends nothing', (_, credentials) => {
      const { auth } = setup();

      const result = track(auth.login(credentials as { username: string; password: string }));

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ code: 'InvalidArgument' });
      // verify() in afterEach: no request went out.
    });
  });

  describe('refresh()', () => {
    it('posts to {baseUrl}/refresh with cookies and no body in the cookie flow, and emits the new token', () => {
      const { auth, httpTesting } = setup({ baseUrl: '/identity' });
      const result = track(auth.refresh());

      const refresh = httpTesting.expectOne('/identity/refresh');
      expect(refresh.request.method).toBe('POST');
      expect(refresh.request.withCredentials).toBe(true);
      expect(refresh.request.body).toBeNull();
      refresh.flush({ accessToken: 'renewed-token' });

      expect(result.value).toBe('renewed-token');
      expect(result.settled).toBe('complete');
      expect(auth.accessToken()).toBe('renewed-token');
    });

    it('sends the stored refresh token in the body of the body flow', () => {
      const store = createStore('refresh-1');
      const { auth, httpTesting } = setup({ refreshFlow: 'body', refreshTokenStore: store });
      track(auth.refresh());

      const refresh = httpTesting.expectOne('/auth/refresh');
      expect(refresh.request.body).toEqual({ refreshToken: 'refresh-1' });
      expect(refresh.request.withCredentials).toBe(true);
      refresh.flush({ accessToken: 'renewed-token' });
    });

    it('stores the rotated refresh token of the response in the body flow', () => {
      const store = createStore('refresh-1');
      const { auth, httpTesting } = setup({ refreshFlow: 'body', refreshTokenStore: store });
      track(auth.refresh());

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token', refreshToken: 'refresh-2' });

      expect(store.get()).toBe('refresh-2');
    });

    it('is joined by the 401 of a request in flight: one refresh call, and the request repeats with its token', () => {
      const { auth, http, httpTesting } = setup();
      signIn(auth, httpTesting);
      const me = track(http.get('/api/me'));
      const renewal = track(auth.refresh());

      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      const repeat = httpTesting.expectOne('/api/me');
      expect(repeat.request.headers.get('Authorization')).toBe('Bearer renewed-token');
      repeat.flush({ name: 'Ada' });
      expect(me.value).toEqual({ name: 'Ada' });
      expect(renewal.value).toBe('renewed-token');
    });

    it('joins the refresh a 401 already started instead of sending a second one', () => {
      const { auth, http, httpTesting } = setup();
      signIn(auth, httpTesting);
      track(http.get('/api/me'));
      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      const renewal = track(auth.refresh());

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      httpTesting.expectOne('/api/me').flush({ name: 'Ada' });
      expect(renewal.value).toBe('renewed-token');
    });

    it('fails with an ApiError carrying the code of the error body, and ends the session', () => {
      const { auth, httpTesting } = setup({ onSessionExpired: jest.fn() });
      signIn(auth, httpTesting);
      const result = track(auth.refresh());

      httpTesting.expectOne('/auth/refresh').flush(errorBody('RefreshTokenExpired'), UNAUTHORIZED);

      expect(result.error).toBeInstanceOf(ApiError);
      expect(result.error).toMatchObject({ status: 401, code: 'RefreshTokenExpired' });
      expect(auth.isAuthenticated()).toBe(false);
    });
  });

  describe('logout', () => {
    it('clears the session at once, before the server answers', () => {
      const { auth, httpTesting } = setup();
      signIn(auth, httpTesting);

      track(auth.logout());

      expect(auth.isAuthenticated()).toBe(false);
      expect(auth.accessToken()).toBeNull();
      expect(auth.expiresAt()).toBeNull();
      httpTesting.expectOne('/auth/logout').flush(null);
    });

    it('posts to {baseUrl}/logout with the old token as Bearer, with cookies and no body in the cookie flow', () => {
      const { auth, httpTesting } = setup({ baseUrl: '/identity' });
      const token = signIn(auth, httpTesting, createTestJwt(), '/identity');
      const result = track(auth.logout());

      const logout = httpTesting.expectOne('/identity/logout');
      expect(logout.request.method).toBe('POST');
      expect(logout.request.headers.get('Authorization')).toBe(`Bearer ${token}`);
      expect(logout.request.withCredentials).toBe(true);
      expect(logout.request.body).toBeNull();
      logout.flush(null, { status: 204, statusText: 'No Content' });
      expect(result.settled).toBe('complete');
    });

    it.each([
      ['another origin that allowedOrigins does not list', 'https://id.example.net/auth'],
      ['plain http, even to an allowed host', 'http://id.example.com/auth'],
    ])('sends no access token to %s', (_, baseUrl) => {
      const { auth, httpTesting } = setup({ baseUrl, allowedOrigins: ['https://id.example.com'] });
      signIn(auth, httpTesting, createTestJwt(), baseUrl);

      track(auth.logout());

      const logout = httpTesting.expectOne(`${baseUrl}/logout`);
      expect(logout.request.headers.has('Authorization')).toBe(false);
      expect(logout.request.withCredentials).toBe(true);
      logout.flush(null);
    });

    it('writes the access token with the interceptor setAuthHeader, to an allowed origin', () => {
      const baseUrl = 'https://id.example.com/auth';
      const { auth, httpTesting } = setup({
        baseUrl,
        allowedOrigins: ['https://id.example.com'],
        setAuthHeader: (request, token) => request.clone({ setHeaders: { 'X-Access-Token': token } }),
      });
      const token = signIn(auth, httpTesting, createTestJwt(), baseUrl);

      track(auth.logout());

      const logout = httpTesting.expectOne(`${baseUrl}/logout`);
      expect(logout.request.headers.get('X-Access-Token')).toBe(token);
      expect(logout.request.headers.has('Authorization')).toBe(false);
      logout.flush(null);
    });

    it('sends the refresh token in the body flow, and forgets it', () => {
      const store = createStore('refresh-1');
      const { auth, httpTesting } = setup({ refreshFlow: 'body', refreshTokenStore: store });
      signIn(auth, httpTesting);
      track(auth.logout());

      const logout = httpTesting.expectOne('/auth/logout');
      expect(logout.request.body).toEqual({ refreshToken: 'refresh-1' });
      logout.flush(null);
      expect(store.get()).toBeNull();
    });

    it.each<[string, (request: ReturnType<HttpTestingController['expectOne']>) => void]>([
      ['a 500', (request) => request.flush(errorBody('InternalError'), { status: 500, statusText: 'Server Error' })],
      ['status 0 (no network)', (request) => request.error(new ProgressEvent('error'))],
    ])('completes without an error when the server answers %s', (_, fail) => {
      const { auth, httpTesting } = setup();
      signIn(auth, httpTesting);
      const result = track(auth.logout());

      fail(httpTesting.expectOne('/auth/logout'));

      expect(result.settled).toBe('complete');
      expect(result.error).toBeUndefined();
      expect(auth.isAuthenticated()).toBe(false);
    });

    it('sends nothing with logoutEndpoint: false, and still ends the session', () => {
      const { auth, httpTesting } = setup({ logoutEndpoint: false });
      signIn(auth, httpTesting);

      const result = track(auth.logout());

      expect(result.settled).toBe('complete');
      expect(auth.isAuthenticated()).toBe(false);
      httpTesting.expectNone('/auth/logout');
    });
  });

  describe('a refresh that fails', () => {
    it.each<[string, (request: ReturnType<HttpTestingController['expectOne']>) => void]>([
      ['no network (status 0)', (request) => request.error(new ProgressEvent('error'))],
      ['503', (request) => request.flush(errorBody('Unavailable'), { status: 503, statusText: 'Unavailable' })],
      ['429', (request) => request.flush(errorBody('TooManyRequests'), { status: 429, statusText: 'Too Many' })],
    ])('keeps the session after %s: the waiting call fails, the next one tries again', (_, fail) => {
      const onSessionExpired = jest.fn();
      const { auth, http, httpTesting } = setup({ onSessionExpired });
      const token = signIn(auth, httpTesting);
      const first = track(http.get('/api/me'));
      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      fail(httpTesting.expectOne('/auth/refresh'));

      expect(first.settled).toBe('error');
      expect(auth.isAuthenticated()).toBe(true);
      expect(auth.accessToken()).toBe(token);
      expect(onSessionExpired).not.toHaveBeenCalled();

      const second = track(http.get('/api/me'));
      const retry = httpTesting.expectOne('/api/me');
      expect(retry.request.headers.get('Authorization')).toBe(`Bearer ${token}`);
      retry.flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      httpTesting.expectOne('/api/me').flush({ name: 'ada' });
      expect(second.value).toEqual({ name: 'ada' });
      expect(auth.accessToken()).toBe('renewed-token');
    });

    it('keeps the session after a refresh that timed out', () => {
      jest.useFakeTimers();
      try {
        const onSessionExpired = jest.fn();
        const { auth, http, httpTesting } = setup({ onSessionExpired, refreshTimeout: 5_000 });
        const token = signIn(auth, httpTesting);
        const first = track(http.get('/api/me'));
        httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);
        const refresh = httpTesting.expectOne('/auth/refresh');

        jest.advanceTimersByTime(5_000);

        expect(refresh.cancelled).toBe(true);
        expect(first.error).toMatchObject({ code: 'Timeout' });
        expect(auth.accessToken()).toBe(token);
        expect(onSessionExpired).not.toHaveBeenCalled();
      } finally {
        jest.useRealTimers();
      }
    });

    it('ends the session when the server refuses the refresh token (401)', () => {
      const onSessionExpired = jest.fn();
      const { auth, http, httpTesting } = setup({ onSessionExpired });
      signIn(auth, httpTesting);
      track(http.get('/api/me'));
      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush(errorBody('RefreshTokenExpired'), UNAUTHORIZED);

      expect(auth.isAuthenticated()).toBe(false);
      expect(onSessionExpired).toHaveBeenCalledTimes(1);
    });

    it("keeps the stored token in 'session' storage through a passing failure", () => {
      const { auth, http, httpTesting } = setup({ tokenStorage: 'session' });
      const token = signIn(auth, httpTesting);
      track(http.get('/api/me'));
      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').error(new ProgressEvent('error'));

      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBe(token);
    });
  });

  describe('restoreSession', () => {
    it('emits true at once, without a refresh, when there is a session', () => {
      const { auth, httpTesting } = setup();
      signIn(auth, httpTesting);

      const result = track(auth.restoreSession());

      expect(result).toMatchObject({ value: true, settled: 'complete' });
      httpTesting.expectNone('/auth/refresh');
    });

    it('restores the session with one refresh and emits true', () => {
      const { auth, httpTesting } = setup();
      const result = track(auth.restoreSession());

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'restored-token' });

      expect(result).toMatchObject({ value: true, settled: 'complete' });
      expect(auth.accessToken()).toBe('restored-token');
    });

    it('emits false, never an error, and does not report an expired session when the refresh fails', () => {
      const onSessionExpired = jest.fn();
      const { auth, httpTesting } = setup({ onSessionExpired });
      const result = track(auth.restoreSession());

      httpTesting.expectOne('/auth/refresh').flush(errorBody('RefreshTokenExpired'), UNAUTHORIZED);

      expect(result).toMatchObject({ value: false, settled: 'complete' });
      expect(onSessionExpired).not.toHaveBeenCalled();
    });

    it('leaves a later failed refresh of a real session reported through onSessionExpired', () => {
      const onSessionExpired = jest.fn();
      const { auth, http, httpTesting } = setup({ onSessionExpired });
      track(auth.restoreSession());
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'restored-token' });

      track(http.get('/api/me'));
      httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush(errorBody('RefreshTokenExpired'), UNAUTHORIZED);

      expect(onSessionExpired).toHaveBeenCalledTimes(1);
      expect(onSessionExpired.mock.calls[0][0]).toMatchObject({ status: 401, code: 'RefreshTokenExpired' });
    });
  });

  describe('a malformed access token', () => {
    it.each([
      ['not a JWT', 'opaque-session-token'],
      ['a payload that is not base64', 'eyJhbGciOiJub25lIn0.%%%.signature'],
      ['a truncated base64 payload', 'eyJhbGciOiJub25lIn0.A.signature'],
      ['a payload that is not JSON', `eyJhbGciOiJub25lIn0.${base64Url('not json')}.signature`],
      ['a payload that is an array', `eyJhbGciOiJub25lIn0.${base64Url('[{"exp":2000000000}]')}.signature`],
      ['an exp that is a string', `eyJhbGciOiJub25lIn0.${base64Url('{"exp":"2000000000"}')}.signature`],
    ])('is kept without crashing when it is %s: isAuthenticated true, expiresAt null', (_, token) => {
      const { auth, httpTesting } = setup();

      signIn(auth, httpTesting, token);

      expect(auth.accessToken()).toBe(token);
      expect(auth.isAuthenticated()).toBe(true);
      expect(auth.expiresAt()).toBeNull();
    });

    it('gives expiresAt null, never an Invalid Date, when exp is beyond what a Date can hold', () => {
      const { auth, httpTesting } = setup();

      signIn(auth, httpTesting, createTestJwt({ exp: 1e300 }));

      expect(auth.isAuthenticated()).toBe(true);
      expect(auth.expiresAt()).toBeNull();
    });
  });

  describe('tokenStorage', () => {
    it("'session' keeps the token in sessionStorage, renewed by a refresh and removed at logout", () => {
      const { auth, httpTesting } = setup({ tokenStorage: 'session' });
      const token = signIn(auth, httpTesting);
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBe(token);

      track(auth.refresh());
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBe('renewed-token');

      track(auth.logout());
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
      httpTesting.expectOne('/auth/logout').flush(null);
    });

    it("'session' restores the stored token at start-up, so the first request carries it", () => {
      const token = createTestJwt({ sub: 'ada' });
      sessionStorage.setItem(ACCESS_TOKEN_KEY, token);
      const { auth, http, httpTesting } = setup({ tokenStorage: 'session' });

      track(http.get('/api/me'));

      expect(httpTesting.expectOne('/api/me').request.headers.get('Authorization')).toBe(`Bearer ${token}`);
      expect(auth.isAuthenticated()).toBe(true);
    });

    it("'memory' never reads nor writes sessionStorage", () => {
      sessionStorage.setItem(ACCESS_TOKEN_KEY, 'left-by-another-configuration');
      const storage = spyOnStorage();
      const { auth, http, httpTesting } = setup({ tokenStorage: 'memory' });

      track(http.get('/api/me'));
      expect(httpTesting.expectOne('/api/me').request.headers.has('Authorization')).toBe(false);
      signIn(auth, httpTesting);
      track(auth.refresh());
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      track(auth.logout());
      httpTesting.expectOne('/auth/logout').flush(null);

      expect(storage.callsOn(sessionStorage)).toEqual([]);
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBe('left-by-another-configuration');
    });

    it.each(['memory', 'session'] as const)("never writes localStorage with tokenStorage '%s'", (tokenStorage) => {
      const storage = spyOnStorage();
      const { auth, httpTesting } = setup({ tokenStorage });

      signIn(auth, httpTesting);
      track(auth.refresh());
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });
      track(auth.logout());
      httpTesting.expectOne('/auth/logout').flush(null);

      expect(storage.callsOn(localStorage)).toEqual([]);
      expect(localStorage.length).toBe(0);
    });
  });

  it('explains the fix when it is used without provideAuth', () => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(withInterceptors([tokenRefreshInterceptor])), provideHttpClientTesting()],
    });

    expect(() => TestBed.inject(AuthClient)).toThrow(/^ngx-token-refresh: .*provideAuth/);
  });
});

describe('provideAuth', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["refreshFlow 'body' without a refreshTokenStore", { refreshFlow: 'body' }, /refreshTokenStore/],
    [
      "refreshFlow 'body' with a store lacking set()",
      { refreshFlow: 'body', refreshTokenStore: { get: () => null } },
      /refreshTokenStore/,
    ],
    ["tokenStorage 'local'", { tokenStorage: 'local' }, /tokenStorage/],
    ["refreshFlow 'x'", { refreshFlow: 'x' }, /refreshFlow/],
    [
      'an interceptor option of the wrong kind',
      { allowedOrigins: ['http://api.example.com'] },
      /never receive a token.*check the options of provideAuth/,
    ],
    ['an empty refreshOnStatus', { refreshOnStatus: [] }, /refreshOnStatus must be a non-empty array.*provideAuth/],
  ])('throws a clear error naming the package for %s', (_, config, message) => {
    const provide = () => provideAuth(config as AuthConfig, withCrossTabSync());

    expect(provide).toThrow(/^ngx-token-refresh: /);
    expect(provide).toThrow(message);
  });
});

describe('parseJwtClaims', () => {
  it('reads the claims of a JWT payload', () => {
    const token = createTestJwt({ sub: 'ada', exp: 2_000_000_000, role: 'admin' });

    expect(parseJwtClaims(token)).toEqual(expect.objectContaining({ sub: 'ada', exp: 2_000_000_000, role: 'admin' }));
  });

  it('decodes a payload as UTF-8', () => {
    expect(parseJwtClaims(createTestJwt({ name: 'Ada Lovelace ✓ – 😀' }))?.['name']).toBe('Ada Lovelace ✓ – 😀');
  });

  it.each<[string, unknown]>([
    ['a number', 42],
    ['null', null],
    ['an empty string', ''],
    ['two parts', 'header.payload'],
    ['four parts', `h.${base64Url('{"exp":1}')}.s.extra`],
    ['an empty payload', 'h..s'],
    ['a payload that is not base64', 'h.%%%.s'],
    ['a truncated base64 payload', 'h.A.s'],
    ['a payload that is not JSON', `h.${base64Url('not json')}.s`],
    ['a payload that is an array', `h.${base64Url('[1,2]')}.s`],
    ['a payload that is a string', `h.${base64Url('"claims"')}.s`],
    ['a payload that is JSON null', `h.${base64Url('null')}.s`],
    ['a payload that is not UTF-8', `h.${base64Url('{"sub":"\xff"}')}.s`],
  ])('returns null, without throwing, for %s', (_, token) => {
    expect(parseJwtClaims(token)).toBeNull();
  });
});

describe('safeReturnUrl', () => {
  it.each(['/users?x=1', '/', '/users/42#profile'])('keeps the path inside the app %j', (returnUrl) => {
    expect(safeReturnUrl(returnUrl, '/home')).toBe(returnUrl);
  });

  it.each<unknown>([
    '//evil.example',
    'https://evil.example',
    '/\\evil.example',
    '/\t/evil.example',
    '/users\n//evil.example',
    'javascript:alert(1)',
    'users',
    '',
    null,
    undefined,
    42,
    ['/users'],
  ])('refuses %j and gives the fallback', (returnUrl) => {
    expect(safeReturnUrl(returnUrl as string, '/home')).toBe('/home');
    expect(safeReturnUrl(returnUrl as string)).toBe('/');
  });
});

const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };
const ACCESS_TOKEN_KEY = 'ngx-token-refresh.accessToken';

@Component({ template: '' })
class Page {}

function setup(config: AuthConfig = {}, routes: Routes = [{ path: 'login', component: Page }]) {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      provideAuth(config, withCrossTabSync()),
      provideRouter(routes),
    ],
  });
  return {
    auth: TestBed.inject(AuthClient),
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    router: TestBed.inject(Router),
  };
}

/** Logs in through the client, answering with `token`; returns it. */
function signIn(auth: AuthClient, httpTesting: HttpTestingController, token = createTestJwt(), baseUrl = '/auth') {
  auth.login({ username: 'ada', password: 'secret' }).subscribe();
  httpTesting.expectOne(`${baseUrl}/login`).flush({ accessToken: token });
  return token;
}

/** Subscribes and records what the caller receives. */
function track<T>(source: Observable<T>) {
  const result: { value?: T; error?: unknown; settled?: 'complete' | 'error' } = {};
  source.subscribe({
    next: (value) => (result.value = value),
    error: (error: unknown) => {
      result.error = error;
      result.settled = 'error';
    },
    complete: () => (result.settled = 'complete'),
  });
  return result;
}

function errorBody(code: string, message = 'Something is wrong.') {
  return { error: { code, message } };
}

function createStore(initial: string | null): RefreshTokenStore {
  let token = initial;
  return { get: () => token, set: (value) => (token = value) };
}

/** Records every Storage call with the storage it was made on. */
function spyOnStorage() {
  const spies = (['getItem', 'setItem', 'removeItem', 'clear', 'key'] as const).map((method) => ({
    method,
    spy: jest.spyOn(Storage.prototype, method),
  }));
  return {
    callsOn: (storage: Storage) =>
      spies.flatMap(({ method, spy }) =>
        spy.mock.contexts.flatMap((context, i) => (context === storage ? [[method, ...spy.mock.calls[i]!]] : [])),
      ),
  };
}

function base64Url(text: string): string {
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
