import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  type ActivatedRouteSnapshot,
  Router,
  type RouterStateSnapshot,
  type Routes,
  provideRouter,
} from '@angular/router';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { AuthClient, type AuthConfig, provideAuth } from 'ngx-token-refresh/client';
import { authGuard } from 'ngx-token-refresh/router';
import { createTestJwt } from 'ngx-token-refresh/testing';

describe('authGuard', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    sessionStorage.clear();
  });

  it('lets the navigation through at once when there is a session', () => {
    const { auth, httpTesting } = setup();
    signIn(auth, httpTesting);

    const result = TestBed.runInInjectionContext(() =>
      authGuard({} as ActivatedRouteSnapshot, { url: '/users' } as RouterStateSnapshot),
    );

    expect(result).toBe(true);
    httpTesting.expectNone('/auth/refresh');
  });

  it('without a session, restores it with one refresh and lets the navigation through', async () => {
    const { auth, httpTesting, router } = setup();
    const navigation = router.navigateByUrl('/users');
    await macrotask();

    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'restored-token' });

    expect(await navigation).toBe(true);
    expect(router.url).toBe('/users');
    expect(auth.accessToken()).toBe('restored-token');
  });

  it('redirects to loginPath with ?returnUrl= the requested URL when the refresh fails', async () => {
    const { httpTesting, router } = setup({ loginPath: '/sign-in' }, [
      { path: 'sign-in', component: Page },
      { path: 'users', component: Page, canActivate: [authGuard] },
    ]);
    const navigation = router.navigateByUrl('/users?page=2');
    await macrotask();

    httpTesting.expectOne('/auth/refresh').flush(errorBody('RefreshTokenExpired'), UNAUTHORIZED);
    await navigation;
    await macrotask();

    expect(router.url).toBe('/sign-in?returnUrl=%2Fusers%3Fpage%3D2');
    expect(router.parseUrl(router.url).queryParams).toEqual({ returnUrl: '/users?page=2' });
  });
});

const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };

@Component({ template: '' })
class Page {}

function setup(
  config: AuthConfig = {},
  routes: Routes = [
    { path: 'login', component: Page },
    { path: 'users', component: Page, canActivate: [authGuard] },
  ],
) {
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
    httpTesting: TestBed.inject(HttpTestingController),
    router: TestBed.inject(Router),
  };
}

/** Logs in through the client, answering with a fresh token. */
function signIn(auth: AuthClient, httpTesting: HttpTestingController) {
  auth.login({ username: 'ada', password: 'secret' }).subscribe();
  httpTesting.expectOne('/auth/login').flush({ accessToken: createTestJwt() });
}

function errorBody(code: string, message = 'Something is wrong.') {
  return { error: { code, message } };
}

/** Lets the router run the steps of a navigation that wait on promises. */
function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve));
}
