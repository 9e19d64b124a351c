/**
 * @jest-environment node
 */
import { HttpClient, provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import {
  type ApplicationConfig,
  Component,
  InjectionToken,
  type OnInit,
  inject,
  provideZonelessChangeDetection,
  signal,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import { tokenRefreshInterceptor, withCrossTabSync, withDPoP, withProactiveRefresh } from 'ngx-token-refresh';
import { type ApiError, AuthClient, provideAuth } from 'ngx-token-refresh/client';

import { listenOnLoopback, runAsServerBundle, textOf } from '../../../src/lib/internal/server-render.spec-helper';

// provideAuth with withDPoP() in a real server render (platform-server, fetch over real HTTP): a render
// has no key (it lives in the browser's IndexedDB), so nothing that needs a proof can be sent. The page
// must render signed out, and nothing may leave with a token or a proof; the browser takes over.

/** What the loopback backend saw: each request's path and its Authorization and DPoP headers. */
const seen: { path: string; authorization: string | undefined; dpop: string | undefined }[] = [];
const ORIGIN = new InjectionToken<string>('ORIGIN');
const expired: ApiError[] = [];

@Component({
  selector: 'app-root',
  template: `<p id="restored">{{ restored() }}</p>
    <p id="users">{{ users() }}</p>
    <p id="login">{{ login() }}</p>`,
})
class App implements OnInit {
  protected readonly restored = signal<boolean | null>(null);
  protected readonly users = signal('loading');
  protected readonly login = signal('not tried');
  readonly #http = inject(HttpClient);
  readonly #auth = inject(AuthClient);
  readonly #origin = inject(ORIGIN);

  ngOnInit(): void {
    this.#auth.restoreSession().subscribe((restored) => this.restored.set(restored));
    this.#http.get(`${this.#origin}/api/v1/users`).subscribe({
      next: () => this.users.set('loaded'),
      error: (error: { name: string; status?: number; code?: string }) =>
        this.users.set(`${error.name} ${error.status ?? ''} ${error.code ?? ''}`.trim()),
    });
    this.#auth.login({ username: 'ada', password: 'lovelace' }).subscribe({
      next: () => this.login.set('signed in'),
      error: (error: ApiError) => this.login.set(`${error.code}: ${error.message}`),
    });
  }
}

describe('provideAuth with withDPoP() under server rendering', () => {
  let backend: Awaited<ReturnType<typeof listenOnLoopback>>;
  let config: ApplicationConfig;

  runAsServerBundle();

  beforeAll(async () => {
    backend = await listenOnLoopback((request, response) => {
      seen.push({
        path: request.url ?? '',
        authorization: request.headers.authorization,
        dpop: request.headers['dpop'] as string | undefined,
      });
      // As the reference server with DPOP=required: a call without a proof is refused.
      response.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'DPoP algs="ES256"' });
      response.end('{"error":{"code":"Unauthorized","message":"Sign in."}}');
    });
    config = {
      providers: [
        provideZonelessChangeDetection(),
        provideServerRendering(),
        provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
        provideAuth(
          {
            baseUrl: `${backend.origin}/auth`,
            allowedOrigins: [backend.origin],
            onSessionExpired: (error) => expired.push(error),
          },
          withDPoP(),
          withCrossTabSync(),
          withProactiveRefresh(),
        ),
        { provide: ORIGIN, useValue: backend.origin },
      ],
    };
  });

  afterAll(() => backend.close());

  it('renders two pages at once signed out: no refresh, no login, nothing with a token or a proof', async () => {
    const render = () =>
      renderApplication((context) => bootstrapApplication(App, config, context), {
        document: '<html><head></head><body><app-root></app-root></body></html>',
      });
    const pages = await Promise.all([render(), render()]);
    for (const html of pages) {
      expect(textOf(html, 'restored')).toBe('false');
      expect(textOf(html, 'users')).toBe('HttpErrorResponse 401');
      expect(textOf(html, 'login')).toBe('NoKey: This page cannot sign its requests here.');
    }
    // Only the API calls left, without a token or a proof; the refresh and the login were never sent.
    expect(seen).toEqual([
      { path: '/api/v1/users', authorization: undefined, dpop: undefined },
      { path: '/api/v1/users', authorization: undefined, dpop: undefined },
    ]);
    expect(expired).toEqual([]);
  });
});
