import { HttpClient, HttpErrorResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, type TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import {
  EnvironmentInjector,
  ErrorHandler,
  createEnvironmentInjector,
  provideZonelessChangeDetection,
  runInInjectionContext,
} from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import { TestBed } from '@angular/core/testing';
import {
  type TokenRefreshEvent,
  type TokenRefreshFeature,
  injectTokenRefresh,
  tokenRefreshInterceptor,
  withCrossTabSync,
  withDPoP,
  withNoCrossTabSync,
  withProactiveRefresh,
  withServerSession,
} from 'ngx-token-refresh';
import {
  OAuthError,
  type OAuthRefreshConfig,
  OAuthSession,
  type OAuthTokenResponse,
  provideOAuthRefresh,
} from 'ngx-token-refresh/oauth';

const TOKEN_ENDPOINT = 'https://id.example.com/oauth/token';
const REVOCATION_ENDPOINT = 'https://id.example.com/oauth/revoke';
const API = 'https://api.example.com/data';
const STORAGE_KEY = 'ngx-token-refresh.oauth.spa.refreshToken';

/** What a caller of `http.get` ended with. */
interface Outcome {
  value?: unknown;
  error?: unknown;
}

function setup(config: Partial<OAuthRefreshConfig> = {}, ...features: TokenRefreshFeature[]) {
  const expired: OAuthError[] = [];
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      provideOAuthRefresh(
        {
          tokenEndpoint: TOKEN_ENDPOINT,
          clientId: 'spa',
          allowedOrigins: ['https://api.example.com'],
          onSessionExpired: (error) => expired.push(error),
          ...config,
        },
        ...(features.length ? features : [withNoCrossTabSync()]),
      ),
    ],
  });
  const http = TestBed.inject(HttpClient);
  const httpTesting = TestBed.inject(HttpTestingController);
  const session = TestBed.inject(OAuthSession);
  const events: TokenRefreshEvent[] = [];
  TestBed.runInInjectionContext(() => injectTokenRefresh()).events.subscribe((event) => events.push(event));
  const get = (): Outcome => {
    const outcome: Outcome = {};
    http.get(API).subscribe({ next: (value) => (outcome.value = value), error: (error) => (outcome.error = error) });
    return outcome;
  };
  return { http, httpTesting, session, expired, events, get };
}

const unauthorized = (request: TestRequest) => request.flush(null, { status: 401, statusText: 'Unauthorized' });

/** The token endpoint's request: checked to be a refresh grant, returned with its form fields. */
function expectRefreshGrant(httpTesting: HttpTestingController): { request: TestRequest; form: URLSearchParams } {
  const request = httpTesting.expectOne({ method: 'POST', url: TOKEN_ENDPOINT });
  expect(request.request.headers.get('Content-Type')).toBe('application/x-www-form-urlencoded');
  expect(request.request.headers.get('Authorization')).toBeNull();
  expect(request.request.withCredentials).toBe(false);
  return { request, form: new URLSearchParams(request.request.body as string) };
}

const grant = (accessToken: string, refreshToken?: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: 300,
    refresh_token: refreshToken,
    ...extra,
  });

const signedIn: OAuthTokenResponse = {
  access_token: 'at-0',
  token_type: 'Bearer',
  expires_in: 300,
  refresh_token: 'rt+0/=',
};

describe('provideOAuthRefresh', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController, null)?.verify();
    localStorage.clear();
  });

  it('turns concurrent 401s into one refresh grant as RFC 6749 §6 says, repeats the calls, and sends the rotated refresh token next time', () => {
    const { httpTesting, session, get } = setup();
    session.setTokens(signedIn);
    const outcomes = [get(), get(), get()];
    const first = httpTesting.match(API);
    expect(first.map((call) => call.request.headers.get('Authorization'))).toEqual(Array(3).fill('Bearer at-0'));
    first.forEach(unauthorized);

    const { request, form } = expectRefreshGrant(httpTesting);
    // `+`, `/` and `=` survive the form encoding (Angular's HttpParams would turn `+` into a space).
    expect([...form]).toEqual([
      ['grant_type', 'refresh_token'],
      ['refresh_token', 'rt+0/='],
      ['client_id', 'spa'],
    ]);
    request.flush(grant('at-1', 'rt-1'));

    const repeats = httpTesting.match(API);
    expect(repeats.map((call) => call.request.headers.get('Authorization'))).toEqual(Array(3).fill('Bearer at-1'));
    repeats.forEach((call, index) => call.flush({ index }));
    expect(outcomes.map((outcome) => outcome.value)).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
    expect(session.accessToken()).toBe('at-1');

    get();
    unauthorized(httpTesting.expectOne(API));
    const second = expectRefreshGrant(httpTesting);
    expect(second.form.get('refresh_token')).toBe('rt-1');
    // No refresh_token in the answer: the one sent stays valid (RFC 6749 §6) and is sent again.
    second.request.flush(grant('at-2'));
    httpTesting.expectOne(API).flush({});
    get();
    unauthorized(httpTesting.expectOne(API));
    expect(expectRefreshGrant(httpTesting).form.get('refresh_token')).toBe('rt-1');
  });

  it('sends the configured scope with each refresh', () => {
    const { httpTesting, session } = setup({ scope: 'openid api:read' });
    session.setTokens(signedIn);
    void TestBed.runInInjectionContext(() => injectTokenRefresh())
      .refresh()
      .subscribe();
    expect(expectRefreshGrant(httpTesting).form.get('scope')).toBe('openid api:read');
  });

  describe('a refresh the server refuses ends the session', () => {
    it('invalid_grant: every waiting call gets the OAuthError, onSessionExpired runs once, the tokens are gone, no second grant', () => {
      const { httpTesting, session, expired, get } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
      session.setTokens(signedIn);
      expect(localStorage.getItem(STORAGE_KEY)).toBe('rt+0/=');
      const outcomes = [get(), get()];
      httpTesting.match(API).forEach(unauthorized);
      expectRefreshGrant(httpTesting).request.flush(
        JSON.stringify({ error: 'invalid_grant', error_description: 'grant request is invalid' }),
        { status: 400, statusText: 'Bad Request' },
      );

      for (const outcome of outcomes) {
        expect(outcome.error).toBeInstanceOf(OAuthError);
        expect(outcome.error).toMatchObject({
          error: 'invalid_grant',
          status: 400,
          description: 'grant request is invalid',
        });
      }
      expect(expired).toHaveLength(1);
      expect(expired[0]).toBe(outcomes[0]!.error);
      expect(session.accessToken()).toBeNull();
      expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
      // The next call goes out without a token; its 401 finds no refresh token: no grant is sent.
      const next = get();
      const call = httpTesting.expectOne(API);
      expect(call.request.headers.has('Authorization')).toBe(false);
      unauthorized(call);
      expect(next.error).toMatchObject({ error: 'no_refresh_token' });
      // The session ended once: nothing more to report.
      expect(expired).toHaveLength(1);
    });

    it('a 401 before any sign-in: the call fails with no_refresh_token, no grant, no onSessionExpired', () => {
      const { httpTesting, expired, get } = setup();
      const outcome = get();
      unauthorized(httpTesting.expectOne(API));
      expect(outcome.error).toMatchObject({ error: 'no_refresh_token' });
      expect(expired).toEqual([]);
    });

    it('a refresh token kept over a reload and refused on the first 401 (no restore() called) ends the session, reported', () => {
      localStorage.setItem(STORAGE_KEY, 'rt-stored');
      const { httpTesting, expired, get } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
      get();
      unauthorized(httpTesting.expectOne(API));
      expectRefreshGrant(httpTesting).request.flush(JSON.stringify({ error: 'invalid_grant' }), {
        status: 400,
        statusText: 'Bad Request',
      });
      expect(expired.map((error) => error.error)).toEqual(['invalid_grant']);
      expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    });

    it.each([
      ['an HTML page with 200', '<html>captive</html>', 200, 'invalid_response', /not JSON/],
      [
        'JSON without access_token',
        JSON.stringify({ token_type: 'Bearer' }),
        200,
        'invalid_response',
        /no usable access_token/,
      ],
      ['an empty access_token', grant(''), 200, 'invalid_response', /no usable access_token/],
      [
        'a token_type that is not Bearer',
        grant('at-1', 'rt-1', { token_type: 'mac' }),
        200,
        'invalid_response',
        /"mac" is not supported/,
      ],
      [
        'a refresh_token with a space',
        grant('at-1', 'rt 1'),
        200,
        'invalid_response',
        /refresh_token that is not a usable token/,
      ],
      ['a JSON array', '[]', 200, 'invalid_response', /not a JSON object/],
      [
        'an HTML error page with 403',
        '<h1>Forbidden</h1>',
        403,
        'invalid_response',
        /answered 403 without an OAuth error/,
      ],
      ['invalid_client with 401', JSON.stringify({ error: 'invalid_client' }), 401, 'invalid_client', /^$/],
    ])('%s: OAuthError %s', (_label, body, status, code, description) => {
      const { httpTesting, session, expired, get } = setup();
      session.setTokens(signedIn);
      const outcome = get();
      unauthorized(httpTesting.expectOne(API));
      expectRefreshGrant(httpTesting).request.flush(body, { status, statusText: 'Whatever' });

      expect(outcome.error).toBeInstanceOf(OAuthError);
      expect(outcome.error).toMatchObject({ error: code, status });
      expect((outcome.error as OAuthError).description).toMatch(description);
      expect(expired).toEqual([outcome.error]);
      expect(session.accessToken()).toBeNull();
    });
  });

  describe('a refresh the server could not answer keeps the session', () => {
    it.each([
      ['no network (status 0)', 0],
      ['503', 503],
      ['429', 429],
      ['408', 408],
    ])('%s: the caller gets the HTTP error, the tokens stay, and the next 401 tries again', (_label, status) => {
      const { httpTesting, session, expired, get } = setup();
      session.setTokens(signedIn);
      const outcome = get();
      unauthorized(httpTesting.expectOne(API));
      const { request } = expectRefreshGrant(httpTesting);
      if (status === 0) request.error(new ProgressEvent('error'));
      else request.flush(JSON.stringify({ error: 'temporarily_unavailable' }), { status, statusText: 'Later' });

      // The HTTP error, even with an OAuth error body: an OAuthError would say the session is over.
      expect(outcome.error).toBeInstanceOf(HttpErrorResponse);
      expect(outcome.error).not.toBeInstanceOf(OAuthError);
      expect(outcome.error).toMatchObject({ status });
      expect(expired).toEqual([]);
      expect(session.accessToken()).toBe('at-0');
      get();
      const call = httpTesting.expectOne(API);
      expect(call.request.headers.get('Authorization')).toBe('Bearer at-0');
      unauthorized(call);
      expect(expectRefreshGrant(httpTesting).form.get('refresh_token')).toBe('rt+0/=');
    });
  });

  it('a sign-out while the refresh runs cancels it: its rotated refresh token is never stored', async () => {
    const { httpTesting, session, get } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
    session.setTokens(signedIn);
    get();
    unauthorized(httpTesting.expectOne(API));
    const { request } = expectRefreshGrant(httpTesting);
    await session.signOut();
    expect(request.cancelled).toBe(true);
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(session.accessToken()).toBeNull();
  });

  describe('OAuthSession', () => {
    it('setTokens refuses a response without a usable access token, and changes nothing', () => {
      const { session } = setup();
      session.setTokens(signedIn);
      for (const bad of [null, 'at', {}, { access_token: '' }, { access_token: 'x', token_type: 'DPoP' }]) {
        expect(() => session.setTokens(bad as unknown as OAuthTokenResponse)).toThrow(OAuthError);
      }
      expect(session.accessToken()).toBe('at-0');
    });

    it('setTokens warns in dev mode when the sign-in brought no refresh_token, and not for a refresh answer without one', () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const { httpTesting, session } = setup();
        session.setTokens(signedIn);
        expect(warn).not.toHaveBeenCalled();
        // RFC 6749 §6: a refresh answer may leave the refresh token out, and the one sent stays valid.
        void TestBed.runInInjectionContext(() => injectTokenRefresh())
          .refresh()
          .subscribe();
        expectRefreshGrant(httpTesting).request.flush(grant('at-1'));
        expect(session.accessToken()).toBe('at-1');
        expect(warn).not.toHaveBeenCalled();

        session.setTokens({ ...signedIn, refresh_token: undefined });
        expect(session.accessToken()).toBe('at-0');
        expect(warn).toHaveBeenCalledTimes(1);
        const message = String(warn.mock.calls[0]?.[0]);
        expect(message).toMatch(
          /^ngx-token-refresh: OAuthSession\.setTokens\(\) got a token response without refresh_token/,
        );
        expect(message).toContain('ends when the access token expires (in 300 s)');
        expect(message).toContain('restore() (a reload, a new tab) finds no session and returns false');
        expect(message).toContain('offline_access scope with prompt=consent');
      } finally {
        warn.mockRestore();
      }
    });

    it('with withDPoP(), takes only DPoP-bound tokens (RFC 9449 §5), and without it, only Bearer ones', () => {
      const { session } = setup({}, withNoCrossTabSync(), withDPoP());
      session.setTokens({ ...signedIn, token_type: 'DPoP' });
      expect(session.accessToken()).toBe('at-0');
      expect(() => session.setTokens({ ...signedIn, access_token: 'at-1', token_type: 'Bearer' })).toThrow(
        /is not DPoP/,
      );
      expect(() => session.setTokens({ ...signedIn, access_token: 'at-1' })).toThrow(/is not DPoP/);
      expect(session.accessToken()).toBe('at-0');
    });

    it('reads expires_in (a number, or a numeric string) for withProactiveRefresh', () => {
      const { session, events } = setup({}, withNoCrossTabSync(), withProactiveRefresh({ leadTime: 60_000 }));
      const before = Date.now();
      session.setTokens({ ...signedIn, expires_in: '600' });
      const planned = events.filter((event) => event.type === 'refreshScheduled').at(-1);
      expect(planned?.type === 'refreshScheduled' && planned.at).toBeGreaterThanOrEqual(before + 539_000);
      expect(planned?.type === 'refreshScheduled' && planned.at).toBeLessThanOrEqual(Date.now() + 539_000);
    });

    it('restore() refreshes with the stored refresh token after a reload, and resolves true', async () => {
      localStorage.setItem(STORAGE_KEY, 'rt-stored');
      const { httpTesting, session } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
      const restored = session.restore();
      const { request, form } = expectRefreshGrant(httpTesting);
      expect(form.get('refresh_token')).toBe('rt-stored');
      request.flush(grant('at-1', 'rt-1'));
      await expect(restored).resolves.toBe(true);
      expect(session.accessToken()).toBe('at-1');
      expect(localStorage.getItem(STORAGE_KEY)).toBe('rt-1');
    });

    it('restore() resolves false without calling onSessionExpired when the server refuses, and forgets the token', async () => {
      localStorage.setItem(STORAGE_KEY, 'rt-stored');
      const { httpTesting, session, expired } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
      const restored = session.restore();
      expectRefreshGrant(httpTesting).request.flush(JSON.stringify({ error: 'invalid_grant' }), {
        status: 400,
        statusText: 'Bad Request',
      });
      await expect(restored).resolves.toBe(false);
      expect(expired).toEqual([]);
      expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    });

    it('restore() resolves false and keeps the refresh token when the server cannot be reached', async () => {
      localStorage.setItem(STORAGE_KEY, 'rt-stored');
      const { httpTesting, session } = setup({ refreshTokenStore: 'local' }, withCrossTabSync());
      const restored = session.restore();
      expectRefreshGrant(httpTesting).request.error(new ProgressEvent('error'));
      await expect(restored).resolves.toBe(false);
      expect(localStorage.getItem(STORAGE_KEY)).toBe('rt-stored');
    });

    it('restore() resolves false at once without a refresh token, and true with an access token', async () => {
      const { session } = setup();
      await expect(session.restore()).resolves.toBe(false);
      session.setTokens(signedIn);
      await expect(session.restore()).resolves.toBe(true);
    });

    it('signOut() forgets the tokens and revokes the refresh token at the revocation endpoint (RFC 7009)', async () => {
      const { httpTesting, session } = setup(
        { refreshTokenStore: 'local', revocationEndpoint: REVOCATION_ENDPOINT },
        withCrossTabSync(),
      );
      session.setTokens(signedIn);
      const signedOut = session.signOut();
      expect(session.accessToken()).toBeNull();
      expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
      const revoke = httpTesting.expectOne({ method: 'POST', url: REVOCATION_ENDPOINT });
      expect([...new URLSearchParams(revoke.request.body as string)]).toEqual([
        ['token', 'rt+0/='],
        ['token_type_hint', 'refresh_token'],
        ['client_id', 'spa'],
      ]);
      revoke.flush('');
      await expect(signedOut).resolves.toBe(true);
    });

    it('signOut() resolves false when the revocation fails, signed out all the same', async () => {
      const { httpTesting, session } = setup({ revocationEndpoint: REVOCATION_ENDPOINT });
      session.setTokens(signedIn);
      const signedOut = session.signOut();
      httpTesting.expectOne(REVOCATION_ENDPOINT).flush('', { status: 503, statusText: 'Unavailable' });
      await expect(signedOut).resolves.toBe(false);
      expect(session.accessToken()).toBeNull();
    });
  });

  describe('each application its own session', () => {
    it('gives two applications made from the same providers (two server renders) a store each', async () => {
      const providers = [
        provideZonelessChangeDetection(),
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        provideHttpClientTesting(),
        provideOAuthRefresh({ tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa' }, withNoCrossTabSync()),
      ];
      const ada = await createApplication({ providers });
      const alan = await createApplication({ providers });
      ada.injector.get(OAuthSession).setTokens(signedIn);
      await expect(alan.injector.get(OAuthSession).restore()).resolves.toBe(false);
      expect(alan.injector.get(HttpTestingController).match(TOKEN_ENDPOINT)).toEqual([]);
      ada.destroy();
      alan.destroy();
    });

    it('works in an environment injector of its own (a route), apart from the root', () => {
      TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
      const child = createEnvironmentInjector(
        [
          provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
          provideHttpClientTesting(),
          provideOAuthRefresh({ tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa' }, withNoCrossTabSync()),
        ],
        TestBed.inject(EnvironmentInjector),
      );
      const session = child.get(OAuthSession);
      session.setTokens(signedIn);
      expect(session.accessToken()).toBe('at-0');
      void runInInjectionContext(child, () => injectTokenRefresh())
        .refresh()
        .subscribe({ error: () => undefined });
      expect(expectRefreshGrant(child.get(HttpTestingController)).form.get('refresh_token')).toBe('rt+0/=');
      child.destroy();
    });
  });

  describe('endpoints that would carry refresh tokens in the clear', () => {
    it('refuses an absolute http: endpoint away from localhost in a production build too', () => {
      const global = globalThis as { ngDevMode?: unknown };
      const devMode = global.ngDevMode;
      global.ngDevMode = false;
      try {
        expect(() => provideOAuthRefresh({ tokenEndpoint: 'http://id.example.com/token', clientId: 'spa' })).toThrow(
          /InvalidOptions/,
        );
        expect(() =>
          provideOAuthRefresh({
            tokenEndpoint: TOKEN_ENDPOINT,
            clientId: 'spa',
            revocationEndpoint: 'http://id.example.com/revoke',
          }),
        ).toThrow(/InvalidOptions/);
      } finally {
        global.ngDevMode = devMode;
      }
    });

    it('sends nothing to a relative endpoint of a page served over http: away from localhost', () => {
      const base = document.createElement('base');
      base.href = 'http://app.example.com/';
      document.head.append(base);
      try {
        const { httpTesting, session, expired } = setup({ tokenEndpoint: '/oauth/token' });
        session.setTokens(signedIn);
        void TestBed.runInInjectionContext(() => injectTokenRefresh())
          .refresh()
          .subscribe({ error: () => undefined });
        httpTesting.expectNone(() => true);
        expect(expired.map((error) => error.error)).toEqual(['insecure_endpoint']);
      } finally {
        base.remove();
      }
    });
  });

  describe('configuration, in dev mode', () => {
    const fails = (config: Partial<OAuthRefreshConfig>, message: RegExp, ...features: TokenRefreshFeature[]) =>
      expect(() =>
        provideOAuthRefresh(
          { tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa', ...config } as OAuthRefreshConfig,
          ...features,
        ),
      ).toThrow(message);

    it('names what is wrong', () => {
      fails({ tokenEndpoint: undefined }, /tokenEndpoint must be the URL/);
      fails({ tokenEndpoint: 'http://id.example.com/token' }, /in the clear: use https/);
      fails({ revocationEndpoint: 'http://id.example.com/revoke' }, /revocationEndpoint .* in the clear/);
      fails({ clientId: '' }, /clientId must be a non-empty string/);
      fails({ refreshTokenStore: 'session' as 'local' }, /sessionStorage is not offered/);
      fails({ onSessionExpired: 'navigate' as unknown as () => void }, /onSessionExpired must be a function/);
      fails({}, /withServerSession/, withServerSession());
      expect(() =>
        provideOAuthRefresh({ tokenEndpoint: 'http://localhost:4444/token', clientId: 'spa' }),
      ).not.toThrow();
      expect(() => provideOAuthRefresh({ tokenEndpoint: '/oauth/token', clientId: 'spa' })).not.toThrow();
    });

    it('warns when a shared refresh token comes without a choice about tabs', () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      provideOAuthRefresh({ tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa', refreshTokenStore: 'local' });
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/add withCrossTabSync\(\)/));
      warn.mockClear();
      provideOAuthRefresh(
        { tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa', refreshTokenStore: 'local' },
        withCrossTabSync(),
      );
      provideOAuthRefresh({ tokenEndpoint: TOKEN_ENDPOINT, clientId: 'spa' });
      expect(warn).not.toHaveBeenCalled();
      warn.mockRestore();
    });

    it('OAuthSession without provideOAuthRefresh says what is missing', () => {
      TestBed.configureTestingModule({
        providers: [{ provide: ErrorHandler, useValue: { handleError: () => undefined } }],
      });
      expect(() => TestBed.inject(OAuthSession)).toThrow(/provideOAuthRefresh/);
    });
  });
});
