/**
 * @jest-environment node
 */
import {
  HttpClient,
  type HttpErrorResponse,
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
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import {
  TokenRefreshError,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withNoCrossTabSync,
  withServerSession,
} from 'ngx-token-refresh';
import { AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { firstValueFrom } from 'rxjs';

import {
  type CookieBackend,
  runAsServerBundle,
  startCookieBackend,
  textOf,
  transferStateOf,
} from '../internal/server-render.spec-helper';

// Real renders (platform-server's renderApplication, the engine @angular/ssr runs) against a real
// HTTP backend that rotates a refresh cookie, as issue 25 asks: the render takes its session from its
// own request, and what the refresh sets reaches the rendered page's answer.

describe('withServerSession in a server render', () => {
  let backend: CookieBackend;

  runAsServerBundle();

  beforeAll(async () => {
    backend = await startCookieBackend();
  });

  afterAll(() => backend.close());

  beforeEach(() => backend.reset());

  /** Renders `/profile` for a request with these cookies (none: prerendering), into `responseInit`. */
  const render = (
    options: {
      cookie?: string | null;
      responseInit?: ResponseInit;
      apiBase?: string;
      askToRefresh?: boolean;
      /** A request without a Cookie header (not prerendering: the request is there). */
      noCookies?: boolean;
      fetch?: boolean;
      refreshCookie?: string;
    } = {},
  ) => {
    const { cookie = null, responseInit = {}, apiBase = backend.origin, askToRefresh = false, fetch = true } = options;
    const config = createAppConfig(apiBase, fetch, options.refreshCookie);
    const url = `${backend.origin}/profile`;
    const request = options.noCookies
      ? new Request(url)
      : cookie === null
        ? null
        : new Request(url, { headers: { cookie } });
    return renderApplication((context) => bootstrapApplication(ProfileApp, config, context), {
      document: '<html><head></head><body><app-root></app-root></body></html>',
      url,
      allowedHosts: ['127.0.0.1'],
      platformProviders: [
        { provide: REQUEST, useValue: request },
        { provide: RESPONSE_INIT, useValue: request === null ? null : responseInit },
        { provide: ASK_TO_REFRESH, useValue: askToRefresh },
      ],
    });
  };

  it('refreshes with the request cookies and passes every Set-Cookie of the answer on to the page', async () => {
    const responseInit: ResponseInit = {};

    const html = await render({ cookie: 'rt=rt-ada-0; theme=dark', responseInit });

    expect(textOf(html, 'name')).toBe('ada');
    const [refresh] = backend.refreshes();
    expect(backend.refreshes()).toHaveLength(1);
    expect(refresh?.cookie).toBe('rt=rt-ada-0; theme=dark');
    // API calls never carry the cookies: the token is their credential.
    expect(backend.calls('/api/me').map((call) => call.cookie)).toEqual([undefined, undefined]);
    const headers = new Headers(responseInit.headers);
    expect(headers.getSetCookie()).toEqual(['rt=rt-ada-1; Path=/; HttpOnly; SameSite=Strict', 'seen=1; Path=/']);
    expect(headers.get('cache-control')).toBe('private, no-store');
  });

  it('hands the token the render ended with to the browser in the transfer state', async () => {
    const html = await render({ cookie: 'rt=rt-ada-0' });

    expect(transferStateOf(html)).toMatchObject({ 'ngx-token-refresh:token': 'at-ada-1' });
  });

  it('passes a refusal on too: the cookie the server clears is cleared in the browser, and no token is handed over', async () => {
    const responseInit: ResponseInit = { headers: { 'X-Kept': 'yes' } };

    const html = await render({ cookie: 'rt=revoked', responseInit });

    expect(textOf(html, 'name')).toBe('error 401');
    const headers = new Headers(responseInit.headers);
    expect(headers.getSetCookie()).toEqual(['rt=; Max-Age=0; Path=/']);
    expect(headers.get('x-kept')).toBe('yes');
    expect(headers.get('cache-control')).toBe('private, no-store');
    expect(transferStateOf(html)['ngx-token-refresh:token'] ?? null).toBeNull();
  });

  it('keeps two parallel renders apart: each refreshes with its own cookie, and each page gets its own', async () => {
    backend.gatherRefreshes(2);
    const [adaInit, alanInit]: ResponseInit[] = [{}, {}];

    const [adaHtml, alanHtml] = await Promise.all([
      render({ cookie: 'rt=rt-ada-0', responseInit: adaInit }),
      render({ cookie: 'rt=rt-alan-0', responseInit: alanInit }),
    ]);

    expect(textOf(adaHtml, 'name')).toBe('ada');
    expect(textOf(alanHtml, 'name')).toBe('alan');
    expect(new Headers(adaInit.headers).getSetCookie()[0]).toMatch(/^rt=rt-ada-1;/);
    expect(new Headers(alanInit.headers).getSetCookie()[0]).toMatch(/^rt=rt-alan-1;/);
    expect(transferStateOf(adaHtml)['ngx-token-refresh:token']).toBe('at-ada-1');
    expect(transferStateOf(alanHtml)['ngx-token-refresh:token']).toBe('at-alan-1');
  });

  it('while prerendering (no request): refreshes nothing, sends no refresh, and the render still completes', async () => {
    // Dev mode says why (with-server-session.setup.server-render.spec.ts); not the subject here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

    const html = await render({ cookie: null, askToRefresh: true });

    expect(textOf(html, 'name')).toBe('error 401');
    expect(backend.refreshes()).toEqual([]);
    expect(textOf(html, 'refresh')).toBe('NoSession');
    warn.mockRestore();
  });

  it('has no session for a request without cookies: sends no refresh, sets no cookie, leaves the page cacheable', async () => {
    const responseInit: ResponseInit = {};

    const html = await render({ noCookies: true, responseInit, askToRefresh: true });

    expect(textOf(html, 'name')).toBe('error 401');
    expect(textOf(html, 'refresh')).toBe('NoSession');
    expect(backend.refreshes()).toEqual([]);
    const headers = new Headers(responseInit.headers);
    expect(headers.getSetCookie()).toEqual([]);
    expect(headers.get('cache-control')).toBeNull();
  });

  it('with refreshCookie: forwards that cookie only, and has no session for a request without it', async () => {
    // Dev mode says why (with-server-session.setup.server-render.spec.ts); not the subject here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const [withIt, without]: ResponseInit[] = [{}, {}];

    const html = await render({
      cookie: 'theme=dark; rt=rt-ada-0; _ga=GA1.1',
      responseInit: withIt,
      refreshCookie: 'rt',
    });
    const other = await render({ cookie: 'theme=dark; _ga=GA1.1', responseInit: without, refreshCookie: 'rt' });

    expect(textOf(html, 'name')).toBe('ada');
    expect(textOf(other, 'name')).toBe('error 401');
    expect(backend.refreshes().map((call) => call.cookie)).toEqual(['rt=rt-ada-0']);
    expect(new Headers(without.headers).get('cache-control')).toBeNull();
    warn.mockRestore();
  });

  it('warns in dev mode when HttpClient does not use fetch on the server (XHR cannot send cookies there)', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);

    await render({ cookie: 'rt=rt-ada-0', fetch: false });

    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(/^ngx-token-refresh: withServerSession\(\) needs HttpClient over fetch/),
    );
    warn.mockRestore();
  });

  it("with provideAuth: a guard's restoreSession() on the server refreshes with the request's cookie and passes the cookie on", async () => {
    const responseInit: ResponseInit = {};
    const url = `${backend.origin}/account`;
    const request = new Request(url, { headers: { cookie: 'rt=rt-alan-0' } });

    const html = await renderApplication(
      (context) =>
        bootstrapApplication(
          RestoringApp,
          {
            providers: [
              provideZonelessChangeDetection(),
              provideServerRendering(),
              provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
              provideAuth({ baseUrl: `${backend.origin}/auth` }, withNoCrossTabSync(), withServerSession()),
            ],
          },
          context,
        ),
      {
        document: '<html><head></head><body><app-root></app-root></body></html>',
        url,
        allowedHosts: ['127.0.0.1'],
        platformProviders: [
          { provide: REQUEST, useValue: request },
          { provide: RESPONSE_INIT, useValue: responseInit },
        ],
      },
    );

    expect(textOf(html, 'restored')).toBe('true');
    expect(backend.refreshes().map((call) => call.cookie)).toEqual(['rt=rt-alan-0']);
    expect(new Headers(responseInit.headers).getSetCookie()[0]).toMatch(/^rt=rt-alan-1;/);
    expect(transferStateOf(html)['ngx-token-refresh:token']).toBe('at-alan-1');
  });

  it('forwards no cookie to an origin the URL policy does not let carry a token', async () => {
    // The app's own origin is the backend's; this one (localhost, not 127.0.0.1) is another.
    const foreign = backend.origin.replace('127.0.0.1', 'localhost');

    // Its 401 starts no refresh (not the app's API: dev mode says so); the app asks for one itself.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    await render({ cookie: 'rt=rt-ada-0', apiBase: foreign, askToRefresh: true });

    // The refresh went there as the app made it (with the app's own header), without the request's cookies.
    expect(backend.refreshes().map((call) => call.cookie)).toEqual(['planted=by-the-app']);
    expect(backend.all().some((call) => call.cookie?.includes('rt-ada'))).toBe(false);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('did not start a refresh, because tokens may not go there'),
    );
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining("went out without the rendered request's cookies, because tokens may not go there"),
    );
    warn.mockRestore();
  });
});

/** Calls `/api/me` on init (401 without a token, so it refreshes), and renders the name or the error. */
@Component({
  selector: 'app-root',
  template: `<p id="name">{{ name() }}</p>
    <p id="refresh">{{ refresh() }}</p>`,
})
class ProfileApp implements OnInit {
  readonly #http = inject(HttpClient);
  readonly #tokenRefresh = injectTokenRefresh();
  readonly #apiBase = inject(API_BASE_URL);
  readonly #askToRefresh = inject(ASK_TO_REFRESH);
  protected readonly name = signal('');
  protected readonly refresh = signal('');

  ngOnInit(): void {
    this.#http.get<{ name: string }>(`${this.#apiBase}/api/me`).subscribe({
      next: ({ name }) => this.name.set(name),
      error: (error: HttpErrorResponse) => {
        this.name.set(`error ${error.status}`);
        // What an explicit refresh gives here (a guard restoring the session would ask for one).
        if (!this.#askToRefresh) return;
        firstValueFrom(this.#tokenRefresh.refresh()).then(
          () => this.refresh.set('refreshed'),
          (failure: unknown) => this.refresh.set(failure instanceof TokenRefreshError ? failure.code : 'other'),
        );
      },
    });
  }
}

/** Restores the session at start, as `authGuard` does before a guarded page renders. */
@Component({
  selector: 'app-root',
  template: `<p id="restored">{{ restored() }}</p>`,
})
class RestoringApp implements OnInit {
  readonly #auth = inject(AuthClient);
  protected readonly restored = signal('');

  ngOnInit(): void {
    this.#auth.restoreSession().subscribe((restored) => this.restored.set(String(restored)));
  }
}

const API_BASE_URL = new InjectionToken<string>('API_BASE_URL');
/** Whether the app asks for a refresh itself after its call failed. */
const ASK_TO_REFRESH = new InjectionToken<boolean>('ASK_TO_REFRESH');

function createAppConfig(apiBase: string, fetch: boolean, refreshCookie?: string): ApplicationConfig {
  return {
    providers: [
      provideZonelessChangeDetection(),
      provideServerRendering(),
      fetch
        ? provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor]))
        : provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideTokenRefresh(
        {
          refreshApiCall: () =>
            inject(HttpClient).post(`${apiBase}/auth/refresh`, null, {
              observe: 'response',
              // What the browser needs; on the server the feature forwards the cookies instead.
              withCredentials: true,
              headers: { Cookie: 'planted=by-the-app' },
            }),
          extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          attachToken: true,
        },
        withServerSession(refreshCookie === undefined ? {} : { refreshCookie }),
      ),
      { provide: API_BASE_URL, useValue: apiBase },
    ],
  };
}
