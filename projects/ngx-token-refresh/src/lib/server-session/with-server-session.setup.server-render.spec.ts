/**
 * @jest-environment node
 */
import {
  HttpClient,
  type HttpInterceptorFn,
  provideHttpClient,
  withFetch,
  withInterceptors,
} from '@angular/common/http';
import {
  type ApplicationConfig,
  Component,
  InjectionToken,
  type OnInit,
  REQUEST,
  RESPONSE_INIT,
  inject,
  provideZonelessChangeDetection,
  signal,
  ɵENABLE_ROOT_COMPONENT_BOOTSTRAP as ENABLE_ROOT_COMPONENT_BOOTSTRAP,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import { tokenRefreshInterceptor, withNoCrossTabSync, withServerSession } from 'ngx-token-refresh';
import { AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { catchError, of, switchMap } from 'rxjs';

import {
  type CookieBackend,
  runAsServerBundle,
  startCookieBackend,
  textOf,
} from '../internal/server-render.spec-helper';

// What dev mode says about the setup traps of server-rendered sessions (issue 35), in real renders
// of an app wired as the README says: provideAuth with its relative /auth, the API at /api. A file of
// its own: some notices are given once per process, and Jest gives each spec file its own modules.

describe('withServerSession in dev mode: the setup traps', () => {
  let backend: CookieBackend;
  let warn: jest.SpyInstance;

  runAsServerBundle();

  beforeAll(async () => {
    backend = await startCookieBackend();
  });

  afterAll(() => backend.close());

  beforeEach(() => {
    backend.reset();
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  afterEach(() => warn.mockRestore());

  /** The warnings given so far whose text contains `text`. */
  const warnings = (text: string) =>
    warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes(text));

  /**
   * Renders `url` for a request with these cookies, or with no request at all (`request: false`:
   * prerendering); `rootComponent: false` bootstraps the app without its root component, as
   * `@angular/ssr` does to extract the routes at build and serve time.
   */
  const render = (
    url: string,
    options: { cookie?: string; request?: boolean; refreshCookie?: string; rootComponent?: boolean } = {},
  ) => {
    const { cookie, request = true, refreshCookie, rootComponent = true } = options;
    const incoming = request ? new Request(url, { headers: cookie === undefined ? {} : { cookie } }) : null;
    return renderApplication((context) => bootstrapApplication(AccountPage, appConfig(refreshCookie), context), {
      document: '<html><head></head><body><app-root></app-root></body></html>',
      url,
      allowedHosts: ['127.0.0.1', 'app.example'],
      platformProviders: [
        { provide: REQUEST, useValue: incoming },
        { provide: RESPONSE_INIT, useValue: incoming === null ? null : {} },
        { provide: API_ORIGIN, useValue: backend.origin },
        rootComponent ? [] : { provide: ENABLE_ROOT_COMPONENT_BOOTSTRAP, useValue: false },
      ],
    });
  };

  describe('prerendering (no REQUEST)', () => {
    it('says nothing while the routes are extracted (the app started without its root component)', async () => {
      await render('https://app.example/', { request: false, rootComponent: false });

      expect(warnings('without a request')).toEqual([]);
    });

    it('says once, for the first of several prerendered pages, that they render signed out and which routes need RenderMode.Server', async () => {
      const first = await render('https://app.example/account', { request: false });
      await render('https://app.example/orders', { request: false });

      expect(textOf(first, 'name')).toBe('signed out');
      expect(backend.refreshes()).toEqual([]);
      const [said, ...again] = warnings('without a request');
      expect(again).toEqual([]);
      expect(said).toMatch(/^ngx-token-refresh: withServerSession\(\): this page is rendered on the server without/);
      expect(said).toContain('renders signed out');
      expect(said).toContain("{ path: 'account', renderMode: RenderMode.Server }");
      expect(said).toContain('app.routes.server.ts');
    });
  });

  describe('refreshCookie', () => {
    it('says once for these names that the request has cookies but not the named one: the names, never a value', async () => {
      const cookie = 'refreshToken=rt-ada-0; theme=dark';

      const html = await render('https://app.example/account', { cookie, refreshCookie: '__Host-refreshToken' });
      await render('https://app.example/account', { cookie, refreshCookie: '__Host-refreshToken' });

      expect(textOf(html, 'name')).toBe('signed out');
      expect(backend.refreshes()).toEqual([]);
      const [said, ...again] = warnings('but none named');
      expect(again).toEqual([]);
      expect(said).toContain('this request has cookies (refreshToken, theme) but none named __Host-refreshToken');
      expect(said).toContain('refreshToken looks like the refresh cookie under another name');
      expect(said).toContain('COOKIE_SECURE=false');
      expect(said).not.toContain('rt-ada-0');
      expect(said).not.toContain('dark');
    });

    it('says nothing for a request with the named cookie (signed in), or with no cookies at all', async () => {
      const html = await render('https://app.example/account', {
        cookie: 'theme=dark; rt=rt-ada-0',
        refreshCookie: 'rt',
      });
      await render('https://app.example/account', { refreshCookie: 'rt' });

      expect(textOf(html, 'name')).toBe('ada');
      expect(warn).not.toHaveBeenCalled();
    });
  });

  describe('the URL the page is rendered for', () => {
    it('plain http on a host that is not loopback (TLS ended by a proxy Angular does not trust): names the cause and trustProxyHeaders, not allowedOrigins', async () => {
      const html = await render('http://app.example/account', { cookie: 'rt=rt-ada-0' });
      await render('http://app.example/orders', { cookie: 'rt=rt-ada-0' });

      expect(textOf(html, 'name')).toBe('signed out');
      // The refresh went out, as the app asked, without the request's cookie.
      expect(backend.refreshes().map((call) => call.cookie)).toEqual([undefined, undefined]);
      const [page, ...again] = warnings('this page is rendered for');
      expect(again).toEqual([]);
      expect(page).toContain('rendered for http://app.example, plain http on a host that is not loopback');
      expect(page).toContain("trustProxyHeaders: ['x-forwarded-proto', ...]");
      const [withheld] = warnings("went out without the rendered request's cookies");
      expect(withheld).toContain('because it goes to http://app.example, plain http');
      expect(withheld).toContain('trustProxyHeaders');
      expect(withheld).not.toContain('add its origin to allowedOrigins');
    });

    it('https (the proxy trusted): signed in, with the API reached over plain http inside the network by an interceptor after tokenRefreshInterceptor', async () => {
      const html = await render('https://app.example/account', { cookie: 'rt=rt-ada-0' });

      expect(textOf(html, 'name')).toBe('ada');
      expect(backend.refreshes().map((call) => call.cookie)).toEqual(['rt=rt-ada-0']);
      expect(warn).not.toHaveBeenCalled();
    });
  });
});

/** Where the API answers inside the network: plain http, the spec's loopback backend. */
const API_ORIGIN = new InjectionToken<string>('API_ORIGIN');

/**
 * The README's recipe for an API inside the network: the app calls `/auth` and `/api` as the browser
 * does (the URL policy judges them against the page's URL), and on the server this interceptor, after
 * tokenRefreshInterceptor, sends them to the internal address.
 */
const internalApiOnServer: HttpInterceptorFn = (request, next) => {
  const origin = inject(API_ORIGIN, { optional: true });
  return origin !== null && /^\/(api|auth)\//.test(request.url)
    ? next(request.clone({ url: origin + request.url }))
    : next(request);
};

/** Restores the session (as `authGuard` does), then shows whose page it is. */
@Component({
  selector: 'app-root',
  template: `<p id="name">{{ name() }}</p>`,
})
class AccountPage implements OnInit {
  readonly #auth = inject(AuthClient);
  readonly #http = inject(HttpClient);
  protected readonly name = signal('');

  ngOnInit(): void {
    this.#auth
      .restoreSession()
      .pipe(
        switchMap((restored) => (restored ? this.#http.get<{ name: string }>('/api/me') : of({ name: 'signed out' }))),
        catchError(() => of({ name: 'error' })),
      )
      .subscribe(({ name }) => this.name.set(name));
  }
}

function appConfig(refreshCookie?: string): ApplicationConfig {
  return {
    providers: [
      provideZonelessChangeDetection(),
      provideServerRendering(),
      provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor, internalApiOnServer])),
      provideAuth({}, withNoCrossTabSync(), withServerSession(refreshCookie === undefined ? {} : { refreshCookie })),
    ],
  };
}
