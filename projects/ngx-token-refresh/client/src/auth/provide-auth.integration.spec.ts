import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, type TestRequest, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component, ErrorHandler, type Provider, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, type Routes, provideRouter } from '@angular/router';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { ApiError, AuthClient, type AuthConfig, UsersService, provideAuth } from 'ngx-token-refresh/client';
import { authGuard, navigateToLogin } from 'ngx-token-refresh/router';
import { createTestJwt } from 'ngx-token-refresh/testing';
import type { Observable } from 'rxjs';

// The service client as an application wires it: AuthClient, the token-refresh interceptor and
// UsersService on one HttpClient, with a router, against the /auth and /api/v1/users contract.
describe('provideAuth in an application', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    sessionStorage.clear();
  });

  describe('an access token that expires', () => {
    it('is refreshed once after a 401, and the call repeats with the new token and succeeds', () => {
      const { auth, users, httpTesting } = setup();
      const loginToken = signIn(auth, httpTesting);
      const list = track(users.list());

      const first = httpTesting.expectOne(USERS);
      expect(first.request.headers.get('Authorization')).toBe(`Bearer ${loginToken}`);
      first.flush(errorBody('TokenExpired'), UNAUTHORIZED);

      const renewedToken = createTestJwt({ sub: 'ada', jti: 'renewed' });
      const refresh = httpTesting.expectOne({ method: 'POST', url: '/auth/refresh' });
      refresh.flush({ accessToken: renewedToken });
      const repeat = httpTesting.expectOne(USERS);
      expect(repeat.request.headers.get('Authorization')).toBe(`Bearer ${renewedToken}`);
      repeat.flush([ADA]);

      expect(list.value?.data).toEqual([ADA]);
      expect(list.settled).toBe('complete');
      expect(auth.accessToken()).toBe(renewedToken);
    });

    it('turns the 401s of several concurrent UsersService calls into one refresh, and repeats them all', () => {
      const { auth, users, httpTesting } = setup();
      signIn(auth, httpTesting);
      const results = [
        track(users.list({ page: 2, pageSize: 10 })),
        track(users.get(1)),
        track(users.create({ name: 'Grace', email: 'grace@example.com' })),
        track(users.delete(3)),
      ];
      const calls = [
        { method: 'GET', url: `${USERS}?page=2&pageSize=10` },
        { method: 'GET', url: `${USERS}/1` },
        { method: 'POST', url: USERS },
        { method: 'DELETE', url: `${USERS}/3` },
      ];
      for (const call of calls) httpTesting.expectOne(call).flush(errorBody('TokenExpired'), UNAUTHORIZED);

      httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'renewed-token' });

      const repeats = calls.map((call) => httpTesting.expectOne(call));
      for (const repeat of repeats) expect(repeat.request.headers.get('Authorization')).toBe('Bearer renewed-token');
      repeats[0]?.flush({ data: [ADA], pagination: { currentPage: 2, pageSize: 10, totalPages: 2, totalItems: 11 } });
      repeats[1]?.flush(ADA);
      repeats[2]?.flush({ id: 2, name: 'Grace', email: 'grace@example.com' }, CREATED);
      repeats[3]?.flush(null, NO_CONTENT);
      expect(results.map((result) => result.settled)).toEqual(['complete', 'complete', 'complete', 'complete']);
    });
  });

  describe('a refresh that fails', () => {
    it('ends the session: no token, and none left in sessionStorage', () => {
      const { auth, users, httpTesting } = setup({ tokenStorage: 'session', onSessionExpired: jest.fn() });
      signIn(auth, httpTesting);
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).not.toBeNull();
      track(users.list());

      failRefresh(httpTesting);

      expect(auth.isAuthenticated()).toBe(false);
      expect(auth.accessToken()).toBeNull();
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    });

    it('calls onSessionExpired once with an ApiError, however many calls were waiting', () => {
      const onSessionExpired = jest.fn();
      const { auth, users, httpTesting } = setup({ onSessionExpired });
      signIn(auth, httpTesting);
      track(users.list());
      track(users.get(1));

      failRefresh(httpTesting, [USERS, `${USERS}/1`]);

      expect(onSessionExpired).toHaveBeenCalledTimes(1);
      const error: unknown = onSessionExpired.mock.calls[0]?.[0];
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 401, code: 'RefreshTokenExpired' });
    });

    it('fails the UsersService callers with an ApiError of status 401', () => {
      const { auth, users, httpTesting } = setup({ onSessionExpired: jest.fn() });
      signIn(auth, httpTesting);
      const results = [track(users.list()), track(users.get(1))];

      failRefresh(httpTesting, [USERS, `${USERS}/1`]);

      for (const result of results) {
        expect(result.error).toBeInstanceOf(ApiError);
        expect(result.error).toMatchObject({ status: 401 });
      }
    });

    it('with navigateToLogin, navigates to /login?reason=expired&returnUrl=<the current URL>', async () => {
      const { auth, users, httpTesting, router } = setup({ onSessionExpired: navigateToLogin });
      signIn(auth, httpTesting);
      expect(await router.navigateByUrl('/users?page=2')).toBe(true);
      track(users.list({ page: 2 }));

      failRefresh(httpTesting, [`${USERS}?page=2`]);
      await macrotask();

      expect(router.url).toBe('/login?reason=expired&returnUrl=%2Fusers%3Fpage%3D2');
    });

    it('with navigateToLogin, gives the reason but no returnUrl when the current URL is /', async () => {
      const { auth, users, httpTesting, router } = setup({ onSessionExpired: navigateToLogin });
      signIn(auth, httpTesting);
      expect(router.url).toBe('/');
      track(users.list());

      failRefresh(httpTesting);
      await macrotask();

      expect(router.url).toBe('/login?reason=expired');
    });

    it('with navigateToLogin() called without the error, from an own handler, gives no reason', async () => {
      const { auth, users, httpTesting, router } = setup({ onSessionExpired: () => navigateToLogin() });
      signIn(auth, httpTesting);
      expect(await router.navigateByUrl('/users')).toBe(true);
      track(users.list());

      failRefresh(httpTesting);
      await macrotask();

      expect(router.url).toBe('/login?returnUrl=%2Fusers');
    });

    it('with navigateToLogin, reports to the ErrorHandler a navigation to the login page that fails', async () => {
      const handleError = jest.fn();
      const guardError = new Error('the login page cannot be shown');
      const { auth, users, httpTesting, router } = setup(
        { onSessionExpired: navigateToLogin },
        [
          {
            path: 'login',
            component: Page,
            canActivate: [
              () => {
                throw guardError;
              },
            ],
          },
          { path: 'users', component: Page },
        ],
        [{ provide: ErrorHandler, useValue: { handleError } }],
      );
      signIn(auth, httpTesting);
      expect(await router.navigateByUrl('/users')).toBe(true);
      track(users.list());

      failRefresh(httpTesting);
      await macrotask();

      expect(handleError).toHaveBeenCalledWith(guardError);
      expect(router.url).toBe('/users');
    });

    it('with navigateToLogin, sends the user to /login also when it fails during a navigation (a resolver loading users)', async () => {
      const { auth, httpTesting, router } = setup({ onSessionExpired: navigateToLogin }, [
        { path: 'login', component: Page },
        { path: 'home', component: Page },
        { path: 'users', component: Page, resolve: { users: () => inject(UsersService).list() } },
      ]);
      signIn(auth, httpTesting);
      await router.navigateByUrl('/home');
      const navigation = router.navigateByUrl('/users').catch((error: unknown) => error);
      await macrotask();

      failRefresh(httpTesting);
      await navigation;
      await macrotask();

      expect(router.parseUrl(router.url).root.children['primary']?.toString()).toBe('login');
    });

    it('navigates nowhere without onSessionExpired: the session is cleared, the page stays', async () => {
      const { auth, users, httpTesting, router } = setup();
      signIn(auth, httpTesting);
      expect(await router.navigateByUrl('/users')).toBe(true);
      const list = track(users.list());

      failRefresh(httpTesting);
      await macrotask();

      expect(list.error).toBeInstanceOf(ApiError);
      expect(auth.isAuthenticated()).toBe(false);
      expect(router.url).toBe('/users');
    });

    it('with navigateToLogin, navigates nowhere in an application without routes, and reports no error', async () => {
      TestBed.configureTestingModule({
        providers: [
          provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
          provideHttpClientTesting(),
          provideAuth({ onSessionExpired: navigateToLogin }, withCrossTabSync()),
        ],
      });
      const auth = TestBed.inject(AuthClient);
      const httpTesting = TestBed.inject(HttpTestingController);
      signIn(auth, httpTesting);
      const list = track(TestBed.inject(UsersService).list());

      failRefresh(httpTesting);
      await macrotask();

      expect(list.error).toBeInstanceOf(ApiError);
      expect(auth.isAuthenticated()).toBe(false);
    });
  });

  describe('a logout while a refresh is in flight', () => {
    it('fails the waiting UsersService callers with an ApiError of status 401: their own', () => {
      const { auth, users, httpTesting } = setup();
      signIn(auth, httpTesting);
      const results = [track(users.list()), track(users.get(1))];
      httpTesting.expectOne(USERS).flush(errorBody('TokenExpired'), UNAUTHORIZED);
      httpTesting.expectOne(`${USERS}/1`).flush(errorBody('TokenExpired'), UNAUTHORIZED);
      const refresh = httpTesting.expectOne('/auth/refresh');

      track(auth.logout());
      httpTesting.expectOne('/auth/logout').flush(null);

      for (const result of results) {
        expect(result.error).toBeInstanceOf(ApiError);
        expect(result.error).toMatchObject({ status: 401, code: 'TokenExpired' });
      }
      answerLate(refresh, { accessToken: 'late-token' });
    });

    it('restores no token when the refresh answers afterwards', () => {
      const onSessionExpired = jest.fn();
      const { auth, users, httpTesting } = setup({ tokenStorage: 'session', onSessionExpired });
      signIn(auth, httpTesting);
      track(users.list());
      httpTesting.expectOne(USERS).flush(errorBody('TokenExpired'), UNAUTHORIZED);
      const refresh = httpTesting.expectOne('/auth/refresh');
      track(auth.logout());
      httpTesting.expectOne('/auth/logout').flush(null);

      answerLate(refresh, { accessToken: 'late-token' });

      expect(auth.accessToken()).toBeNull();
      expect(sessionStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
      track(users.get(1));
      expect(httpTesting.expectOne(`${USERS}/1`).request.headers.has('Authorization')).toBe(false);
      expect(onSessionExpired).not.toHaveBeenCalled();
    });
  });
});

const USERS = '/api/v1/users';
const ACCESS_TOKEN_KEY = 'ngx-token-refresh.accessToken';
const ADA = { id: 1, name: 'Ada', email: 'ada@example.com' };
const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };
const CREATED = { status: 201, statusText: 'Created' };
const NO_CONTENT = { status: 204, statusText: 'No Content' };

@Component({ template: '' })
class Page {}

function setup(
  config: AuthConfig = {},
  routes: Routes = [
    { path: 'login', component: Page },
    { path: 'users', component: Page, canActivate: [authGuard] },
  ],
  providers: Provider[] = [],
) {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      provideAuth(config, withCrossTabSync()),
      provideRouter(routes),
      ...providers,
    ],
  });
  return {
    auth: TestBed.inject(AuthClient),
    users: TestBed.inject(UsersService),
    httpTesting: TestBed.inject(HttpTestingController),
    router: TestBed.inject(Router),
  };
}

/** Logs in through the client; returns the access token the server gave. */
function signIn(auth: AuthClient, httpTesting: HttpTestingController): string {
  const token = createTestJwt({ sub: 'ada' });
  auth.login({ username: 'ada', password: 'secret' }).subscribe();
  httpTesting.expectOne('/auth/login').flush({ accessToken: token });
  return token;
}

/** Answers the calls at `urls` with 401, then the one refresh with 401 and the uniform error body. */
function failRefresh(httpTesting: HttpTestingController, urls = [USERS]): void {
  for (const url of urls) httpTesting.expectOne(url).flush(errorBody('TokenExpired'), UNAUTHORIZED);
  httpTesting
    .expectOne('/auth/refresh')
    .flush(errorBody('RefreshTokenExpired', 'Your session has ended.'), UNAUTHORIZED);
}

/** The server's late answer; an aborted request's answer never reaches the app, as in a browser. */
function answerLate(request: TestRequest, body: object): void {
  if (!request.cancelled) request.flush(body);
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

function errorBody(code: string, message = 'The access token has expired.') {
  return { error: { code, message } };
}

/** Lets the router run the steps of a navigation that wait on promises. */
function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve));
}
