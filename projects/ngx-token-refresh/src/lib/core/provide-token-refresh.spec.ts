import { HttpClient, type HttpErrorResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { type ApplicationRef, EnvironmentInjector, inject, provideZonelessChangeDetection } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { createApplication } from '@angular/platform-browser';
import {
  TokenRefreshError,
  type TokenRefreshOptions,
  injectTokenRefresh,
  provideTokenRefresh,
  type TokenRefreshFeature,
  tokenRefreshInterceptor,
  withNoCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { provideAuth } from 'ngx-token-refresh/client';

describe('provideTokenRefresh', () => {
  describe('in one application', () => {
    afterEach(() => TestBed.inject(HttpTestingController).verify());

    it('runs the same refresh logic through tokenRefreshInterceptor', () => {
      const onRefreshSuccess = jest.fn();
      configure({ onRefreshSuccess });
      const http = TestBed.inject(HttpClient);
      const httpTesting = TestBed.inject(HttpTestingController);
      const values: unknown[] = [];
      http.get('/api/a').subscribe((value) => values.push(value));
      http.get('/api/b').subscribe((value) => values.push(value));

      httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });
      for (const url of ['/api/a', '/api/b']) {
        const repeat = httpTesting.expectOne(url);
        expect(repeat.request.headers.get('Authorization')).toBe('Bearer new');
        repeat.flush(url);
      }

      expect(values).toEqual(['/api/a', '/api/b']);
      expect(onRefreshSuccess).toHaveBeenCalledTimes(1);
    });

    it("lets injectTokenRefresh().disable() switch this application's interceptor off", () => {
      configure();
      const state = TestBed.runInInjectionContext(() => injectTokenRefresh());
      const http = TestBed.inject(HttpClient);
      const httpTesting = TestBed.inject(HttpTestingController);

      state.disable();
      let status = 0;
      http.get('/api/b').subscribe({ error: (error: HttpErrorResponse) => (status = error.status) });
      httpTesting.expectOne('/api/b').flush(null, UNAUTHORIZED);
      expect(status).toBe(401);
      httpTesting.expectNone('/auth/refresh');
    });

    it('explains the fix when tokenRefreshInterceptor is used without provideTokenRefresh', () => {
      TestBed.configureTestingModule({
        providers: [provideHttpClient(withInterceptors([tokenRefreshInterceptor])), provideHttpClientTesting()],
      });
      let error: unknown;
      TestBed.inject(HttpClient)
        .get('/api/a')
        .subscribe({ error: (caught: unknown) => (error = caught) });

      expect(String(error)).toMatch(/^Error: ngx-token-refresh: .*provideTokenRefresh/);
    });

    it('explains the fix when injectTokenRefresh finds no interceptor', () => {
      TestBed.configureTestingModule({ providers: [provideHttpClientTesting()] });
      expect(() => TestBed.runInInjectionContext(() => injectTokenRefresh())).toThrow(
        /^ngx-token-refresh: injectTokenRefresh found no interceptor/,
      );
      expect(() => injectTokenRefresh()).toThrow(/injection context/);
    });
  });

  describe('features', () => {
    it('applies refreshOnStatus, allowedOrigins and setAuthHeader together', () => {
      configure({
        refreshOnStatus: [419],
        allowedOrigins: ['https://api.example.com'],
        setAuthHeader: (request, token) => request.clone({ setHeaders: { 'X-Token': token } }),
      });
      const http = TestBed.inject(HttpClient);
      const httpTesting = TestBed.inject(HttpTestingController);
      let status = 0;
      http.get('/api/plain').subscribe({ error: (error: HttpErrorResponse) => (status = error.status) });
      http.get('https://api.example.com/a').subscribe();

      httpTesting.expectOne('/api/plain').flush(null, UNAUTHORIZED);
      httpTesting.expectOne('https://api.example.com/a').flush(null, { status: 419, statusText: 'Expired' });
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'new' });

      expect(status).toBe(401);
      const repeat = httpTesting.expectOne('https://api.example.com/a');
      expect(repeat.request.headers.get('X-Token')).toBe('new');
      repeat.flush('a');
      httpTesting.verify();
    });

    it.each<[string, unknown[], RegExp]>([
      ['something that is not a feature', [{}], /provideTokenRefresh got \[object Object\] where a feature belongs/],
      ['null', [null], /provideTokenRefresh got null where a feature belongs/],
      [
        'one feature twice',
        [withProactiveRefresh(), withProactiveRefresh({ leadTime: 5_000 })],
        /the feature ProactiveRefresh twice/,
      ],
    ])('refuses %s in dev mode, naming the fix', (_, features, message) => {
      const provide = () => provideTokenRefresh(refreshOptions(), ...(features as TokenRefreshFeature[]));

      expect(provide).toThrow(/^ngx-token-refresh: /);
      expect(provide).toThrow(message);
    });
  });

  describe('injectTokenRefresh()', () => {
    it('hands out the state and its controls only, not the internals of the interceptor', () => {
      configure();
      const state = TestBed.runInInjectionContext(() => injectTokenRefresh());

      expect(Object.keys(state).sort()).toEqual(
        ['events', 'isRefreshing', 'refresh', 'enable', 'setToken', 'disable', 'token'].sort(),
      );
      expect(TestBed.runInInjectionContext(() => injectTokenRefresh())).toBe(state);
    });
  });

  it('carries only the code of a misuse error in production builds', () => {
    TestBed.configureTestingModule({ providers: [provideHttpClientTesting()] });
    const global = globalThis as { ngDevMode?: unknown };
    const devMode = global.ngDevMode;
    global.ngDevMode = false;
    try {
      expect(() => TestBed.runInInjectionContext(() => injectTokenRefresh())).toThrow(
        /^ngx-token-refresh: MissingProvider$/,
      );
    } finally {
      global.ngDevMode = devMode;
    }
  });

  it('validates the options when the providers are built', () => {
    expect(() => provideTokenRefresh({ refreshApiCall: () => [] } as unknown as TokenRefreshOptions)).toThrow(
      /^ngx-token-refresh: extractToken is required/,
    );
  });

  it('refuses a second registration of the options at start-up, naming both', () => {
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        provideHttpClientTesting(),
        provideTokenRefresh(refreshOptions()),
        provideAuth({}, withNoCrossTabSync()),
      ],
    });

    expect(() => TestBed.inject(HttpClient)).toThrow(
      /^ngx-token-refresh: .*registered 2 times \(provideTokenRefresh, provideAuth\)/,
    );
  });

  describe('in two applications at once (e.g. two users rendered on one server)', () => {
    let apps: ApplicationRef[] = [];
    afterEach(() => {
      for (const app of apps) app.destroy();
      apps = [];
    });

    it('never lets one application wait on, or receive, the token of the other, even with shared providers', async () => {
      // One set of providers in module scope (an app.config.ts), as a server renders it per request.
      const shared = [
        ...appProviders(withInterceptors([tokenRefreshInterceptor])),
        provideTokenRefresh(refreshOptions()),
      ];
      apps = await Promise.all([createApplication({ providers: shared }), createApplication({ providers: shared })]);
      const [alice, bob] = apps.map((app) => ({
        http: app.injector.get(HttpClient),
        httpTesting: app.injector.get(HttpTestingController),
        state: injectTokenRefresh({ injector: app.injector }),
      })) as [AppUnderTest, AppUnderTest];
      const received: Record<string, unknown> = {};
      alice.http.get('/api/me').subscribe((value) => (received['alice'] = value));
      bob.http.get('/api/me').subscribe((value) => (received['bob'] = value));

      alice.httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);
      expect(alice.state.isRefreshing()).toBe(true);
      expect(bob.state.isRefreshing()).toBe(false);
      bob.httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);
      // Bob did not queue behind Alice's refresh: he has his own.
      bob.httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'bob-token' });
      const bobRepeat = bob.httpTesting.expectOne('/api/me');
      expect(bobRepeat.request.headers.get('Authorization')).toBe('Bearer bob-token');
      bobRepeat.flush('bob');
      expect(alice.state.token()).toBeNull();
      alice.httpTesting.expectNone('/api/me');

      alice.httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'alice-token' });
      const aliceRepeat = alice.httpTesting.expectOne('/api/me');
      expect(aliceRepeat.request.headers.get('Authorization')).toBe('Bearer alice-token');
      aliceRepeat.flush('alice');

      expect(received).toEqual({ alice: 'alice', bob: 'bob' });
      expect([alice.state.token(), bob.state.token()]).toEqual(['alice-token', 'bob-token']);
      alice.httpTesting.verify();
      bob.httpTesting.verify();
    });

    it('settles the waiters with a TokenRefreshError when the application is destroyed mid-refresh', async () => {
      const [app] = (apps = [
        await createApplication({
          providers: appProviders(withInterceptors([tokenRefreshInterceptor])).concat(
            provideTokenRefresh(refreshOptions()),
          ),
        }),
      ]);
      const state = injectTokenRefresh({ injector: app.injector });
      let error: unknown;
      app.injector
        .get(HttpClient)
        .get('/api/me')
        .subscribe({ error: (caught: unknown) => (error = caught) });
      app.injector.get(HttpTestingController).expectOne('/api/me').flush(null, UNAUTHORIZED);
      expect(state.isRefreshing()).toBe(true);

      app.destroy();
      apps = [];

      expect(error).toBeInstanceOf(TokenRefreshError);
      expect((error as TokenRefreshError).code).toBe('Destroyed');
      expect(state.isRefreshing()).toBe(false);
    });

    it('gives each application its own switch, so disable() stays local', async () => {
      const options = refreshOptions();
      apps = await Promise.all([
        createApplication({
          providers: [...appProviders(withInterceptors([tokenRefreshInterceptor])), provideTokenRefresh(options)],
        }),
        createApplication({
          providers: [...appProviders(withInterceptors([tokenRefreshInterceptor])), provideTokenRefresh(options)],
        }),
      ]);
      const [first, second] = apps.map((app) => ({
        http: app.injector.get(HttpClient),
        httpTesting: app.injector.get(HttpTestingController),
        state: injectTokenRefresh({ injector: app.injector }),
      })) as [AppUnderTest, AppUnderTest];

      first.state.disable();
      first.http.get('/api/me').subscribe({ error: () => undefined });
      second.http.get('/api/me').subscribe();
      first.httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);
      second.httpTesting.expectOne('/api/me').flush(null, UNAUTHORIZED);

      first.httpTesting.expectNone('/auth/refresh');
      second.httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'x' });
      second.httpTesting.expectOne('/api/me').flush('me');
      first.httpTesting.verify();
      second.httpTesting.verify();
    });
  });
});

const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };

interface AppUnderTest {
  http: HttpClient;
  httpTesting: HttpTestingController;
  state: ReturnType<typeof injectTokenRefresh>;
}

function refreshOptions(overrides: Partial<TokenRefreshOptions> = {}): TokenRefreshOptions {
  return {
    refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
    extractToken: (response) => (response.body as { accessToken: string }).accessToken,
    ...overrides,
  };
}

function configure(overrides: Partial<TokenRefreshOptions> = {}) {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      provideTokenRefresh(refreshOptions(overrides)),
    ],
  });
  return TestBed.inject(EnvironmentInjector);
}

function appProviders(interceptors: ReturnType<typeof withInterceptors>) {
  return [provideZonelessChangeDetection(), provideHttpClient(interceptors), provideHttpClientTesting()];
}
