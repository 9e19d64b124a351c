/**
 * @jest-environment node
 */
import {
  HttpBackend,
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpRequest,
  provideHttpClient,
  withFetch,
  withInterceptors,
} from '@angular/common/http';
import {
  Component,
  InjectionToken,
  type OnInit,
  type Provider,
  REQUEST,
  RESPONSE_INIT,
  inject,
  provideZonelessChangeDetection,
  signal,
} from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import {
  type BffSessionConfig,
  bffSessionInterceptor,
  injectBffSession,
  provideBffSession,
} from 'ngx-token-refresh/client';
import { Observable } from 'rxjs';

import {
  listenOnLoopback,
  runAsServerBundle,
  textOf,
  transferStateOf,
} from '../../../src/lib/internal/server-render.spec-helper';

// Real renders (platform-server's renderApplication, the engine @angular/ssr runs) against a BFF on
// loopback, over fetch: the render asks GET /bff/session with the rendered request's session cookie,
// sends that cookie to this site's BFF paths and nowhere else, and hands the browser the user's
// claims, never a token.

/** What a backend saw: each request's path, its Cookie header and its x-csrf header. */
interface Seen {
  readonly path: string;
  readonly cookie: string | undefined;
  readonly csrf: string | undefined;
}

/** The API of another origin, which the page calls too. */
const OTHER_ORIGIN = new InjectionToken<string>('OTHER_ORIGIN');

@Component({
  selector: 'app-root',
  template: `<p id="status">{{ session.status() }}</p>
    <p id="user">{{ session.user()?.['name'] ?? '' }}</p>
    <p id="me">{{ me() }}</p>
    <p id="other">{{ other() }}</p>`,
})
class AccountPage implements OnInit {
  protected readonly session = injectBffSession();
  protected readonly me = signal('loading');
  protected readonly other = signal('loading');
  readonly #http = inject(HttpClient);
  readonly #otherOrigin = inject(OTHER_ORIGIN);

  ngOnInit(): void {
    this.#http.get<{ name: string }>('/api/me').subscribe({
      next: (me) => this.me.set(me.name),
      error: (error: HttpErrorResponse) => this.me.set(`error ${error.status}`),
    });
    this.#http.get(`${this.#otherOrigin}/api/me`).subscribe({
      next: () => this.other.set('loaded'),
      error: (error: HttpErrorResponse) => this.other.set(`error ${error.status}`),
    });
  }
}

describe('provideBffSession in a server render', () => {
  let bff: Awaited<ReturnType<typeof listenOnLoopback>>;
  let other: Awaited<ReturnType<typeof listenOnLoopback>>;
  let seen: Seen[];
  let seenElsewhere: Seen[];
  const expired = jest.fn();

  runAsServerBundle();

  beforeAll(async () => {
    // This site's BFF: a session per cookie value, and a BFF that says too much (a token beside the
    // claims), to show that nothing but the claims reaches the page.
    bff = await listenOnLoopback((request, response) => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      seen.push(seenOf(request.url, request.headers));
      const user = /(?:^|; )__Host-bff-session=s-(ada|grace|ending)(?:;|$)/.exec(request.headers.cookie ?? '')?.[1];
      const ended = /__Host-bff-session=s-ended/.test(request.headers.cookie ?? '');
      response.setHeader('Content-Type', 'application/json');
      if (user === 'ending' && path !== '/bff/session') {
        // A session that ends during the render: its API call comes back after the session was read.
        setTimeout(() => {
          response.writeHead(401);
          response.end(JSON.stringify({ error: { code: 'SessionEnded', message: 'Sign in again.' } }));
        }, 50);
      } else if (!user) {
        response.writeHead(401);
        response.end(JSON.stringify({ error: { code: ended ? 'SessionEnded' : 'NoSession', message: 'Sign in.' } }));
      } else if (path === '/bff/session') {
        const session = { user: { sub: user, name: NAMES[user] }, expiresAt: EXPIRES_AT, idleExpiresAt: EXPIRES_AT };
        response.end(JSON.stringify({ ...session, accessToken: 'at-secret-of-the-bff' }));
      } else {
        response.end(JSON.stringify({ name: NAMES[user] }));
      }
    });
    other = await listenOnLoopback((request, response) => {
      seenElsewhere.push(seenOf(request.url, request.headers));
      response.setHeader('Content-Type', 'application/json');
      response.end('{}');
    });
  });

  afterAll(() => Promise.all([bff.close(), other.close()]));

  beforeEach(() => {
    seen = [];
    seenElsewhere = [];
    expired.mockClear();
  });

  /** Renders /account for a request with this Cookie header (`null`: prerendering, no request). */
  const render = (
    cookie: string | null,
    options: { responseInit?: ResponseInit; url?: string; config?: BffSessionConfig; providers?: Provider[] } = {},
  ) => {
    const url = options.url ?? `${bff.origin}/account`;
    const request = cookie === null ? null : new Request(url, { headers: { cookie } });
    return renderApplication(
      (context) =>
        bootstrapApplication(
          AccountPage,
          {
            providers: [
              provideZonelessChangeDetection(),
              provideServerRendering(),
              provideHttpClient(withFetch(), withInterceptors([bffSessionInterceptor])),
              provideBffSession({ onSessionExpired: expired, ...options.config }),
              { provide: OTHER_ORIGIN, useValue: other.origin },
              ...(options.providers ?? []),
            ],
          },
          context,
        ),
      {
        document: '<html><head></head><body><app-root></app-root></body></html>',
        url,
        allowedHosts: ['127.0.0.1', 'app.example'],
        platformProviders: [
          { provide: REQUEST, useValue: request },
          { provide: RESPONSE_INIT, useValue: request === null ? null : (options.responseInit ?? {}) },
        ],
      },
    );
  };

  it('renders the signed-in user, sending the session cookie and no other to the BFF paths, with x-csrf', async () => {
    const html = await render('theme=dark; __Host-bff-session=s-ada; _ga=GA1.1');

    expect(textOf(html, 'status')).toBe('signedIn');
    expect(textOf(html, 'user')).toBe('Ada Lovelace');
    expect(textOf(html, 'me')).toBe('Ada Lovelace');
    expect(seen).toEqual([
      { path: '/bff/session', cookie: '__Host-bff-session=s-ada', csrf: '1' },
      { path: '/api/me', cookie: '__Host-bff-session=s-ada', csrf: '1' },
    ]);
  });

  it('sends neither the cookie nor x-csrf to another origin', async () => {
    const html = await render('__Host-bff-session=s-ada');

    expect(textOf(html, 'other')).toBe('loaded');
    expect(seenElsewhere).toEqual([{ path: '/api/me', cookie: undefined, csrf: undefined }]);
  });

  it('makes the page private: Cache-Control: private, no-store, beside the headers already set', async () => {
    const responseInit: ResponseInit = { headers: { 'X-Kept': 'yes' } };

    await render('__Host-bff-session=s-ada', { responseInit });

    const headers = new Headers(responseInit.headers);
    expect(headers.get('cache-control')).toBe('private, no-store');
    expect(headers.get('x-kept')).toBe('yes');
  });

  it('hands the browser the claims in the transfer state, and no token', async () => {
    const html = await render('__Host-bff-session=s-ada');

    expect(transferStateOf(html)['ngx-token-refresh:bff-session']).toEqual({
      user: { sub: 'ada', name: 'Ada Lovelace' },
      expiresAt: EXPIRES_AT,
    });
    expect(html).not.toContain('at-secret');
    expect(html).not.toContain('s-ada');
  });

  it('keeps two renders at once apart: each with its own cookie, user and page', async () => {
    const [adaHtml, graceHtml] = await Promise.all([
      render('__Host-bff-session=s-ada'),
      render('__Host-bff-session=s-grace'),
    ]);

    expect(textOf(adaHtml, 'user')).toBe('Ada Lovelace');
    expect(textOf(graceHtml, 'user')).toBe('Grace Hopper');
    expect(textOf(graceHtml, 'me')).toBe('Grace Hopper');
    expect(adaHtml).not.toContain('Grace');
    expect(graceHtml).not.toContain('Ada');
  });

  it('prerenders signed out: no request, so nothing is asked and no cookie goes anywhere', async () => {
    const html = await render(null);

    expect(textOf(html, 'status')).toBe('signedOut');
    expect(textOf(html, 'user')).toBe('');
    expect(textOf(html, 'me')).toBe('error 401');
    expect(seen).toEqual([{ path: '/api/me', cookie: undefined, csrf: '1' }]);
    expect(transferStateOf(html)['ngx-token-refresh:bff-session']).toBeUndefined();
  });

  it('renders a request without the session cookie signed out, asking nothing, and leaves the browser to ask', async () => {
    const responseInit: ResponseInit = {};

    const html = await render('theme=dark', { responseInit });

    expect(textOf(html, 'status')).toBe('signedOut');
    expect(seen.map((call) => call.path)).toEqual(['/api/me']);
    expect(seen[0]?.cookie).toBeUndefined();
    expect(transferStateOf(html)['ngx-token-refresh:bff-session']).toBeUndefined();
    expect(new Headers(responseInit.headers).get('cache-control')).toBeNull();
  });

  it('renders a session that had ended signed out', async () => {
    const html = await render('__Host-bff-session=s-ended');

    expect(textOf(html, 'status')).toBe('signedOut');
    expect(textOf(html, 'me')).toBe('error 401');
    expect(transferStateOf(html)['ngx-token-refresh:bff-session']).toBeUndefined();
  });

  it('renders a session that ends during the render signed out, hands nothing over, and runs no onSessionExpired on the server', async () => {
    const html = await render('__Host-bff-session=s-ending');

    expect(seen.map((call) => call.path)).toEqual(['/bff/session', '/api/me']);
    expect(textOf(html, 'status')).toBe('signedOut');
    expect(textOf(html, 'me')).toBe('error 401');
    expect(transferStateOf(html)['ngx-token-refresh:bff-session']).toBeUndefined();
    expect(expired).not.toHaveBeenCalled();
  });

  it('calls serverUrl instead of the public URL when given', async () => {
    const html = await render('__Host-bff-session=s-ada', {
      url: 'https://app.example/account',
      config: { serverUrl: bff.origin },
    });

    expect(textOf(html, 'user')).toBe('Ada Lovelace');
    expect(seen).toEqual([
      { path: '/bff/session', cookie: '__Host-bff-session=s-ada', csrf: '1' },
      { path: '/api/me', cookie: '__Host-bff-session=s-ada', csrf: '1' },
    ]);
  });

  it('never sends the cookie over plain http to a host that is not loopback', async () => {
    // Angular's own advice for a backend that is not fetch (this one records instead of sending).
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const sent: { url: string; cookie: string | null; csrf: string | null }[] = [];
    const recording: HttpBackend = {
      handle: (request: HttpRequest<unknown>) =>
        new Observable<HttpEvent<unknown>>((subscriber) => {
          sent.push({ url: request.url, cookie: request.headers.get('cookie'), csrf: request.headers.get('x-csrf') });
          subscriber.error(
            new HttpErrorResponse({ status: 401, url: request.url, error: { error: { code: 'NoSession' } } }),
          );
        }),
    };

    const html = await render('__Host-bff-session=s-ada', {
      url: 'http://app.example/account',
      providers: [{ provide: HttpBackend, useValue: recording }],
    });

    expect(textOf(html, 'status')).toBe('signedOut');
    expect(sent.filter((call) => call.url.startsWith('http://app.example/'))).toEqual([
      { url: 'http://app.example/bff/session', cookie: null, csrf: '1' },
      { url: 'http://app.example/api/me', cookie: null, csrf: '1' },
    ]);
    expect(warn.mock.calls.map(([message]) => String(message).slice(0, 8))).toEqual(['NG02801:']);
    warn.mockRestore();
  });
});

const EXPIRES_AT = Date.UTC(2030, 0, 1);
const NAMES: Record<string, string> = { ada: 'Ada Lovelace', grace: 'Grace Hopper', ending: 'Ending' };

function seenOf(url: string | undefined, headers: Record<string, string | string[] | undefined>): Seen {
  return {
    path: new URL(url ?? '/', 'http://127.0.0.1').pathname,
    cookie: headers['cookie'] as string | undefined,
    csrf: headers['x-csrf'] as string | undefined,
  };
}
