import { HttpClient, type HttpInterceptorFn, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  type TokenRefreshOptions,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
} from 'ngx-token-refresh';

import { UNAUTHORIZED, track } from './token-refresh-test-bed.spec-helper';

// In dev mode, a 401 for a request that went out without the token the interceptor held says why
// every request now pays for a refresh (attachToken: false, and nothing else attaches the token).
describe('the warning for a token held but not attached', () => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined)));
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    warn.mockRestore();
  });

  it('warns once when requests sent without the held token meet 401s', () => {
    const { http, httpTesting } = setup({ attachToken: false });
    for (const [url, token] of [
      ['/api/a', 'fresh-1'],
      ['/api/b', 'fresh-2'],
    ]) {
      track(http.get(url));
      const sent = httpTesting.expectOne(url);
      expect(sent.request.headers.has('Authorization')).toBe(false);
      sent.flush(null, UNAUTHORIZED);
      httpTesting.expectOne('/auth/refresh').flush({ accessToken: token });
      httpTesting.expectOne(url).flush({});
    }

    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(
      /^ngx-token-refresh: GET \/api\/a went out without the access token the interceptor holds and got a 401.*attachToken: false/,
    );
  });

  it('stays silent when the token is attached (the default)', () => {
    const { http, httpTesting } = setup({});
    track(http.get('/api/a'));
    const sent = httpTesting.expectOne('/api/a');
    expect(sent.request.headers.get('Authorization')).toBe('Bearer from-login');
    sent.flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'fresh' });
    httpTesting.expectOne('/api/a').flush({});

    expect(warn).not.toHaveBeenCalled();
  });

  it('stays silent when an interceptor before it attached a token', () => {
    const attachOwn: HttpInterceptorFn = (request, next) =>
      next(request.clone({ setHeaders: { Authorization: 'Bearer own' } }));
    const { http, httpTesting } = setup({ attachToken: false }, attachOwn);
    track(http.get('/api/a'));
    httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'fresh' });
    httpTesting.expectOne('/api/a').flush({});

    expect(warn).not.toHaveBeenCalled();
  });

  it('stays silent for the 401 of a request sent before any token was known', () => {
    const { http, httpTesting } = setup({ attachToken: false }, null, null);
    track(http.get('/api/a'));
    httpTesting.expectOne('/api/a').flush(null, UNAUTHORIZED);
    httpTesting.expectOne('/auth/refresh').flush({ accessToken: 'fresh' });
    httpTesting.expectOne('/api/a').flush({});

    expect(warn).not.toHaveBeenCalled();
  });
});

/**
 * An application with `provideTokenRefresh(options)` (after `before`, if given) whose token after
 * login is `token`.
 */
function setup(
  options: Partial<TokenRefreshOptions>,
  before: HttpInterceptorFn | null = null,
  token: string | null = 'from-login',
) {
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([...(before ? [before] : []), tokenRefreshInterceptor])),
      provideTokenRefresh({
        refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
        extractToken: (response) => (response.body as { accessToken: string }).accessToken,
        ...options,
      }),
      provideHttpClientTesting(),
    ],
  });
  TestBed.runInInjectionContext(() => injectTokenRefresh().setToken(token));
  return { http: TestBed.inject(HttpClient), httpTesting: TestBed.inject(HttpTestingController) };
}
