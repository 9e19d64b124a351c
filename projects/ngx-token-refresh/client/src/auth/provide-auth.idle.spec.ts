import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { injectIdleTimeout, tokenRefreshInterceptor, withIdleTimeout, withNoCrossTabSync } from 'ngx-token-refresh';
import { type ApiError, AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { navigateToLogin } from 'ngx-token-refresh/router';

// provideAuth with withIdleTimeout(): at the deadline the session ends, the server is told (its
// logout, with the token the session had), and onSessionExpired gets an ApiError IdleTimeout, which
// navigateToLogin turns into ?reason=idle. Several tabs and Chromium: with-idle-timeout.spec.ts, e2e/.

@Component({ template: '' })
class Page {}

describe('provideAuth with withIdleTimeout()', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.useRealTimers();
    localStorage.clear();
  });

  function setup(body: 'cookie' | 'body' = 'cookie') {
    const expired: ApiError[] = [];
    let refreshToken: string | null = 'rt-1';
    TestBed.configureTestingModule({
      providers: [
        provideRouter([
          { path: 'login', component: Page },
          { path: 'users', component: Page },
        ]),
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        provideHttpClientTesting(),
        provideAuth(
          {
            baseUrl: '/auth',
            loginPath: '/login',
            onSessionExpired: (error) => {
              expired.push(error);
              navigateToLogin(error);
            },
            ...(body === 'body'
              ? {
                  refreshFlow: 'body' as const,
                  refreshTokenStore: { get: () => refreshToken, set: (token: string | null) => (refreshToken = token) },
                }
              : {}),
          },
          withNoCrossTabSync(),
          withIdleTimeout({ idle: 60_000, warnBefore: 10_000 }),
        ),
      ],
    });
    const auth = TestBed.inject(AuthClient);
    const httpTesting = TestBed.inject(HttpTestingController);
    const idle = TestBed.runInInjectionContext(() => injectIdleTimeout());
    return { auth, httpTesting, idle, expired, refreshToken: () => refreshToken };
  }

  async function signIn(auth: AuthClient, httpTesting: HttpTestingController) {
    const done = auth.login({ username: 'ada', password: 'lovelace' }).subscribe();
    httpTesting.expectOne('/auth/login').flush({ accessToken: 'access-1' });
    done.unsubscribe();
    await TestBed.inject(Router).navigateByUrl('/users');
  }

  it('ends the session at the deadline, tells the server once with its token, and sends people to ?reason=idle', async () => {
    const { auth, httpTesting, idle, expired } = setup();
    await signIn(auth, httpTesting);
    expect(idle.state()).toBe('active');

    await jest.advanceTimersByTimeAsync(50_000);
    expect(idle.state()).toBe('warning');
    await jest.advanceTimersByTimeAsync(10_000);

    expect(idle.state()).toBe('timedOut');
    expect(auth.isAuthenticated()).toBe(false);
    const logout = httpTesting.expectOne('/auth/logout');
    expect(logout.request.headers.get('Authorization')).toBe('Bearer access-1');
    logout.flush(null, { status: 204, statusText: 'No Content' });
    expect(expired.map((error) => error.code)).toEqual(['IdleTimeout']);
    await jest.advanceTimersByTimeAsync(0);
    expect(TestBed.inject(Router).url).toBe('/login?reason=idle&returnUrl=%2Fusers');
  });

  it('in the body flow, sends the refresh token with the logout and forgets it', async () => {
    const { auth, httpTesting, refreshToken } = setup('body');
    await signIn(auth, httpTesting);
    await jest.advanceTimersByTimeAsync(60_000);
    const logout = httpTesting.expectOne('/auth/logout');
    expect(logout.request.body).toEqual({ refreshToken: 'rt-1' });
    logout.flush(null, { status: 204, statusText: 'No Content' });
    expect(refreshToken()).toBeNull();
  });

  it('after the end, a 401 makes no refresh and reports nothing more; a new sign-in starts again', async () => {
    const { auth, httpTesting, idle, expired } = setup();
    await signIn(auth, httpTesting);
    await jest.advanceTimersByTimeAsync(60_000);
    httpTesting.expectOne('/auth/logout').flush(null, { status: 204, statusText: 'No Content' });

    expect(await new Promise((resolve) => auth.restoreSession().subscribe(resolve))).toBe(false);
    httpTesting.expectNone('/auth/refresh');
    expect(expired).toHaveLength(1);

    await signIn(auth, httpTesting);
    expect(idle.state()).toBe('active');
  });
});
