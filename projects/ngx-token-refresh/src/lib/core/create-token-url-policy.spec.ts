import { DOCUMENT } from '@angular/common';
import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { EnvironmentInjector, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  type TokenRefreshOptions,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
} from 'ngx-token-refresh';

// Which URLs may carry the token, seen through the interceptor: with `attachToken` every outgoing
// request shows the decision, and a 401 from a URL that may not carry the token never starts a refresh.
describe('tokens only where they belong', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    jest.restoreAllMocks();
  });

  describe('on an https application', () => {
    it.each([
      ['a root-relative URL', '/api/users'],
      ['a path-relative URL', 'api/users'],
      ['the same origin, absolute', 'https://app.example.com/api/users'],
      ['an allowed origin', 'https://api.example.com/users'],
      ['an origin matching an allowed pattern', 'https://eu.api.example.net/users'],
    ])('writes the token to %s', (_, url) => {
      const { http, httpTesting } = setup('https://app.example.com/home');
      http.get(url).subscribe();
      expect(httpTesting.expectOne(url).request.headers.get('Authorization')).toBe('Bearer current');
    });

    it.each([
      ['another origin', 'https://evil.example/steal'],
      ['a protocol-relative URL to another origin', '//evil.example/steal'],
      ['a backslash URL that browsers send to another origin', '/\\evil.example/steal'],
      ['a subdomain of the application', 'https://evil.app.example.com/steal'],
      ['an allowed origin over plain http', 'http://api.example.com/users'],
      ['the same host on another port', 'https://app.example.com:8443/api'],
      ['a look-alike of an allowed pattern', 'https://eu.api.example.net.evil.example/users'],
      ['a URL whose tab the browser strips, leaving //', '/\t/evil.example/steal'],
      ['a URL whose newline the browser strips, leaving //', '/\n/evil.example/steal'],
      ['a URL whose carriage return the browser strips, leaving /\\', '/\r\\evil.example/steal'],
      ['a javascript: URL', 'javascript:alert(1)'],
    ])('never writes the token to %s', (_, url) => {
      const { http, httpTesting } = setup('https://app.example.com/home');
      http.get(url).subscribe();
      expect(httpTesting.expectOne(url).request.headers.has('Authorization')).toBe(false);
    });

    it('matches an allowed pattern on every request, even one with the global flag', () => {
      const { http, httpTesting } = setup('https://app.example.com/home');
      for (let i = 0; i < 3; i++) http.get(`https://eu.api.example.net/users/${i}`).subscribe();
      for (let i = 0; i < 3; i++) {
        const request = httpTesting.expectOne(`https://eu.api.example.net/users/${i}`);
        expect(request.request.headers.get('Authorization')).toBe('Bearer current');
      }
    });

    it('never refreshes for, nor repeats with a token, a 401 from another origin', () => {
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { http, httpTesting, refreshCount } = setup('https://app.example.com/home');
      let status = 0;
      http
        .get('https://third-party.example/data')
        .subscribe({ error: (error: { status: number }) => (status = error.status) });

      httpTesting
        .expectOne('https://third-party.example/data')
        .flush(null, { status: 401, statusText: 'Unauthorized' });

      expect(status).toBe(401);
      expect(refreshCount()).toBe(0);
    });
  });

  describe('in dev mode', () => {
    it('warns once per origin that a 401 from an unmanaged origin did not start a refresh', () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const { http, httpTesting } = setup('https://app.example.com/home');
        for (const url of ['https://api.other.example/a', 'https://api.other.example/b']) {
          http.get(url).subscribe({ error: () => undefined });
          httpTesting.expectOne(url).flush(null, { status: 401, statusText: 'Unauthorized' });
        }

        expect(warn).toHaveBeenCalledTimes(1);
        expect(warn.mock.calls[0]?.[0]).toMatch(
          /^ngx-token-refresh: a 401 from https:\/\/api\.other\.example\/a .*allowedOrigins/,
        );
      } finally {
        warn.mockRestore();
      }
    });
  });

  describe('on a plain-http application', () => {
    it('never writes the token to its own origin unless that is localhost', () => {
      const intranet = setup('http://intranet.example/app');
      intranet.http.get('/api/users').subscribe();
      expect(intranet.httpTesting.expectOne('/api/users').request.headers.has('Authorization')).toBe(false);
    });

    it.each(['http://localhost:4200/', 'http://127.0.0.1:4200/', 'http://[::1]:4200/', 'http://app.localhost/'])(
      'writes the token over plain http on the loopback host %s',
      (base) => {
        const { http, httpTesting } = setup(base);
        http.get('/api/users').subscribe();
        expect(httpTesting.expectOne('/api/users').request.headers.get('Authorization')).toBe('Bearer current');
      },
    );
  });
});

/** The interceptor, with a known current token, in an application served from `location`. */
function setup(location: string, overrides: Partial<TokenRefreshOptions> = {}) {
  let refreshes = 0;
  const tokenRefresh = provideTokenRefresh({
    refreshApiCall: () => {
      refreshes++;
      return inject(HttpClient).post('/auth/refresh', null, { observe: 'response' });
    },
    extractToken: (response) => (response.body as { accessToken: string }).accessToken,
    attachToken: true,
    allowedOrigins: ['https://api.example.com', /^https:\/\/[a-z]+\.api\.example\.net$/g],
    ...overrides,
  });
  // Only `location` matters to the interceptor; `cookie` keeps Angular's XSRF interceptor content.
  const document = { location: new URL(location), cookie: '' };
  TestBed.configureTestingModule({
    providers: [
      { provide: DOCUMENT, useValue: document },
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      tokenRefresh,
    ],
  });
  injectTokenRefresh({ injector: TestBed.inject(EnvironmentInjector) }).setToken('current');
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    refreshCount: () => refreshes,
  };
}
