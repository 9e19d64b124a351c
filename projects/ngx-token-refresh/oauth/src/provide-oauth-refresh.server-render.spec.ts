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
  inject,
  provideAppInitializer,
  provideZonelessChangeDetection,
  signal,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import { tokenRefreshInterceptor, withCrossTabSync, withProactiveRefresh } from 'ngx-token-refresh';
import { type OAuthError, OAuthSession, provideOAuthRefresh } from 'ngx-token-refresh/oauth';

import { listenOnLoopback, runAsServerBundle, textOf } from '../../src/lib/internal/server-render.spec-helper';

// provideOAuthRefresh in a real server render (platform-server, fetch over real HTTP), configured as a
// browser app is (localStorage store, cross-tab sync, proactive refresh): the refresh token lives in
// the browser, so a render has no session. It must render, send no token and no grant, and report no
// expired session; withServerSession() is refused for it (see provide-oauth-refresh.spec.ts).

/** What the loopback backend saw: each request's path and Authorization header. */
const seen: { path: string; authorization: string | undefined }[] = [];
/** The backend's origin, known once it listens. */
const ORIGIN = new InjectionToken<string>('ORIGIN');
const expired: OAuthError[] = [];

@Component({
  selector: 'app-root',
  template: `<p id="restored">{{ restored() }}</p>
    <p id="status">{{ status() }}</p>`,
})
class App implements OnInit {
  protected readonly restored = signal<boolean | null>(null);
  protected readonly status = signal('loading');
  readonly #http = inject(HttpClient);
  readonly #session = inject(OAuthSession);
  readonly #origin = inject(ORIGIN);

  ngOnInit(): void {
    void this.#session.restore().then((restored) => this.restored.set(restored));
    this.#http.get(`${this.#origin}/api/me`).subscribe({
      next: () => this.status.set('signed in'),
      error: (error: HttpErrorResponse | OAuthError) =>
        this.status.set(`${error.name}: ${'error' in error ? String(error.error) : ''}`),
    });
  }
}

describe('provideOAuthRefresh under server rendering', () => {
  let backend: Awaited<ReturnType<typeof listenOnLoopback>>;
  let config: ApplicationConfig;

  runAsServerBundle();

  beforeAll(async () => {
    backend = await listenOnLoopback((request, response) => {
      seen.push({ path: request.url ?? '', authorization: request.headers.authorization });
      response.writeHead(request.url === '/api/me' ? 401 : 500, { 'Content-Type': 'application/json' });
      response.end('{}');
    });
    config = {
      providers: [
        provideZonelessChangeDetection(),
        provideServerRendering(),
        provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
        provideOAuthRefresh(
          {
            tokenEndpoint: `${backend.origin}/token`,
            clientId: 'spa',
            refreshTokenStore: 'local',
            allowedOrigins: [backend.origin],
            onSessionExpired: (error) => expired.push(error),
          },
          withCrossTabSync(),
          withProactiveRefresh(),
        ),
        { provide: ORIGIN, useValue: backend.origin },
        provideAppInitializer(() => inject(OAuthSession).restore()),
      ],
    };
  });

  afterAll(() => backend.close());

  it('renders two pages at once signed out: no token sent, no grant, no session reported expired', async () => {
    const render = () =>
      renderApplication((context) => bootstrapApplication(App, config, context), {
        document: '<html><head></head><body><app-root></app-root></body></html>',
      });
    const pages = await Promise.all([render(), render()]);
    for (const html of pages) {
      expect(textOf(html, 'restored')).toBe('false');
      expect(textOf(html, 'status')).toBe('OAuthError: no_refresh_token');
    }
    expect(seen).toEqual([
      { path: '/api/me', authorization: undefined },
      { path: '/api/me', authorization: undefined },
    ]);
    expect(expired).toEqual([]);
  });
});
