import {
  HttpBackend,
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpRequest,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import { type ApplicationRef, ErrorHandler, provideZonelessChangeDetection } from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import {
  type CrossTabSyncOptions,
  TokenRefreshError,
  type TokenRefreshRef,
  injectTokenRefresh,
  tokenRefreshInterceptor,
  withCrossTabSync,
} from 'ngx-token-refresh';
import { type OAuthError, type OAuthRefreshConfig, OAuthSession, provideOAuthRefresh } from 'ngx-token-refresh/oauth';
import { Observable, firstValueFrom } from 'rxjs';

import { FakeBrowser, pause } from '../../src/lib/internal/fake-tabs.spec-helper';

const TOKEN_ENDPOINT = 'https://id.example.com/token';
const KEY = 'ngx-token-refresh.oauth.spa.refreshToken';

// provideOAuthRefresh in several tabs of one browser: Web Locks and BroadcastChannel from FakeBrowser
// (tabs as applications in one page), jsdom's localStorage shared as a browser's is, and an identity
// server with strict rotation: a refresh token presented twice revokes the whole sign-in.

/** A token endpoint with strict rotation and reuse detection (no grace), and an API. */
class FakeIdP {
  serial = 0;
  grantMs = 20;
  failNext = 0;
  grantDelays: number[] = [];
  readonly liveAccess = new Set<string>();
  /** Refresh tokens of the family: live, or spent. */
  readonly live = new Set<string>();
  readonly spent = new Set<string>();
  grants: string[] = [];
  reuse = 0;
  familyRevoked = false;

  signIn(): { access_token: string; refresh_token: string; expires_in: number; token_type: string } {
    const at = `at-${++this.serial}`;
    const rt = `rt-${this.serial}`;
    this.liveAccess.add(at);
    this.live.add(rt);
    return { access_token: at, refresh_token: rt, expires_in: 300, token_type: 'Bearer' };
  }

  expireAccess(): void {
    this.liveAccess.clear();
  }

  readonly backend: HttpBackend = {
    handle: (request: HttpRequest<unknown>) =>
      new Observable<HttpEvent<unknown>>((subscriber) => {
        const isGrant = request.url === TOKEN_ENDPOINT;
        const timer = setTimeout(
          () => {
            if (isGrant && this.failNext > 0) {
              this.failNext--;
              this.grants.push('(503)');
              subscriber.error(new HttpErrorResponse({ status: 503, url: request.url, error: 'busy' }));
              return;
            }
            if (isGrant) {
              const rt = new URLSearchParams(request.body as string).get('refresh_token')!;
              this.grants.push(rt);
              if (this.spent.has(rt) || this.familyRevoked || !this.live.has(rt)) {
                if (this.spent.has(rt)) {
                  this.reuse++;
                  this.familyRevoked = true;
                  this.live.clear();
                  this.liveAccess.clear();
                }
                subscriber.error(
                  new HttpErrorResponse({
                    status: 400,
                    url: request.url,
                    error: JSON.stringify({ error: 'invalid_grant' }),
                  }),
                );
                return;
              }
              this.live.delete(rt);
              this.spent.add(rt);
              const body = this.signIn();
              subscriber.next(new HttpResponse({ status: 200, url: request.url, body: JSON.stringify(body) }));
            } else if (this.liveAccess.has(request.headers.get('Authorization')?.replace(/^Bearer /, '') ?? '')) {
              subscriber.next(new HttpResponse({ status: 200, body: request.url, url: request.url }));
            } else {
              subscriber.error(new HttpErrorResponse({ status: 401, url: request.url }));
              return;
            }
            subscriber.complete();
          },
          isGrant ? (this.grantDelays.shift() ?? this.grantMs) : 2,
        );
        return () => clearTimeout(timer);
      }),
  };
}

interface Tab {
  app: ApplicationRef;
  session: OAuthSession;
  state: TokenRefreshRef;
  expired: string[];
  get(url: string): Promise<unknown>;
}

async function openTab(
  browser: FakeBrowser,
  client: number,
  idp: FakeIdP,
  config: Partial<OAuthRefreshConfig>,
  sync: CrossTabSyncOptions = {},
): Promise<Tab> {
  const expired: string[] = [];
  const app = await browser.as(client, async () => {
    const created = await createApplication({
      providers: [
        provideZonelessChangeDetection(),
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        { provide: HttpBackend, useValue: idp.backend },
        { provide: ErrorHandler, useValue: { handleError: (error: unknown) => fail(error) } },
        provideOAuthRefresh(
          {
            tokenEndpoint: TOKEN_ENDPOINT,
            clientId: 'spa',
            onSessionExpired: (error: OAuthError) => expired.push(error.error),
            ...config,
          },
          withCrossTabSync(sync),
        ),
      ],
    });
    injectTokenRefresh({ injector: created.injector });
    created.injector.get(OAuthSession);
    return created;
  });
  const http = app.injector.get(HttpClient);
  return {
    app,
    session: app.injector.get(OAuthSession),
    state: injectTokenRefresh({ injector: app.injector }),
    expired,
    get: (url) => firstValueFrom(http.get(url)),
  };
}

describe('provideOAuthRefresh in several tabs', () => {
  let browser: FakeBrowser;
  let idp: FakeIdP;
  let tabs: Tab[];

  beforeEach(() => {
    browser = new FakeBrowser();
    browser.install();
    idp = new FakeIdP();
    tabs = [];
  });

  afterEach(() => {
    for (const tab of tabs) if (!tab.app.destroyed) tab.app.destroy();
    browser.uninstall();
    localStorage.clear();
  });

  async function open(count: number, config: Partial<OAuthRefreshConfig>, sync: CrossTabSyncOptions = {}) {
    for (let client = 1; client <= count; client++) tabs.push(await openTab(browser, client, idp, config, sync));
    return tabs;
  }

  /** What a call ended with: `ok`, the OAuth error code, or the HTTP status. */
  const settle = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (error: unknown) =>
        error instanceof HttpErrorResponse
          ? error.status
          : error instanceof TokenRefreshError
            ? error.code
            : (error as OAuthError).error,
    );

  it("with the 'local' store, one grant for all tabs, and the next expiry in another tab sends the rotated token", async () => {
    const [a, b] = await open(2, { refreshTokenStore: 'local' });
    a!.session.setTokens(idp.signIn());
    await pause(10);
    idp.expireAccess();
    expect(await Promise.all([settle(a!.get('/api')), settle(b!.get('/api'))])).toEqual(['ok', 'ok']);
    idp.expireAccess();
    expect(await settle(b!.get('/api'))).toBe('ok');
    expect(idp.grants).toEqual(['rt-1', 'rt-2']);
    expect(idp.reuse).toBe(0);
  });

  it("with the 'local' store, a tab opened later restores from a live tab's access token, without a grant", async () => {
    const [a] = await open(1, { refreshTokenStore: 'local' });
    a!.session.setTokens(idp.signIn());
    await pause(10);
    const b = await openTab(browser, 2, idp, { refreshTokenStore: 'local' });
    tabs.push(b);

    await expect(b.session.restore()).resolves.toBe(true);

    expect(b.state.token()).toBe('at-1');
    expect(idp.grants).toEqual([]);
    expect(await settle(b.get('/api'))).toBe('ok');
  });

  it("never refreshes without the lock with the 'local' store: a tab that waits past refreshTimeout keeps its session, and no token is sent twice", async () => {
    // 300 ms is short on purpose (the wait must end within the test); each tab's dev-mode check says so.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const warnings: string[] = [];
    const [a, b] = await open(2, { refreshTokenStore: 'local', refreshTimeout: 300 }).finally(() => {
      warnings.push(...warn.mock.calls.map(([message]) => String(message)));
      warn.mockRestore();
    });
    expect(warnings).toEqual(Array(2).fill(expect.stringContaining('refreshTimeout is 300 ms')));
    a!.session.setTokens(idp.signIn());
    await pause(10);
    idp.expireAccess();
    // A third tab, frozen while it held the lock.
    browser.holdForever('ngx-token-refresh');
    const results = await Promise.all([settle(a!.get('/api')), settle(b!.get('/api'))]);
    expect(idp.grants).toEqual([]);
    expect(results).toEqual(['Timeout', 'Timeout']);
    expect(localStorage.getItem(KEY)).toBe('rt-1');
    expect([a!.state.token(), b!.state.token()]).toEqual(['at-1', 'at-1']);
    expect([a!.expired, b!.expired]).toEqual([[], []]);
  });

  it('keeps the session when a slow 503 makes the other tabs wait past refreshTimeout: no refresh token sent twice', async () => {
    const [a, b, c] = await open(3, { refreshTokenStore: 'local', refreshTimeout: 1000 });
    a!.session.setTokens(idp.signIn());
    await pause(20);
    idp.expireAccess();
    idp.failNext = 1;
    idp.grantDelays = [900, 600];
    const calls = [settle(a!.get('/api'))];
    await pause(5);
    calls.push(settle(b!.get('/api')));
    await pause(5);
    calls.push(settle(c!.get('/api')));
    await Promise.all(calls);
    expect(idp.reuse).toBe(0);
    expect([a!.expired, b!.expired, c!.expired]).toEqual([[], [], []]);
    expect(idp.familyRevoked).toBe(false);
  }, 10_000);

  it('a sign-out in one tab while another refreshes: the answer reaches no tab, and every tab ends signed out', async () => {
    browser.messageDelayMs = 30;
    const [a, b] = await open(2, { refreshTokenStore: 'local' });
    a!.session.setTokens(idp.signIn());
    await pause(60);
    idp.expireAccess();
    const call = settle(a!.get('/api'));
    await pause(10);
    await b!.session.signOut();
    await call;
    await pause(100);
    expect([a!.state.token(), b!.state.token(), localStorage.getItem(KEY)]).toEqual([null, null, null]);
    expect(a!.expired).toEqual(['signed_out_elsewhere']);
    expect(b!.expired).toEqual([]);
  });

  it('a new sign-in in one tab while another refreshes the old session: the new one stays, in every tab', async () => {
    browser.messageDelayMs = 5;
    idp.grantMs = 40;
    const [a, b] = await open(2, { refreshTokenStore: 'local' });
    a!.session.setTokens(idp.signIn());
    await pause(30);
    idp.expireAccess();
    void settle(a!.get('/api'));
    await pause(10);
    idp.liveAccess.add('at-other-user');
    idp.live.add('rt-other-user');
    b!.session.setTokens({ access_token: 'at-other-user', refresh_token: 'rt-other-user', token_type: 'Bearer' });
    await pause(150);
    expect(b!.state.token()).toBe('at-other-user');
    expect(localStorage.getItem(KEY)).toBe('rt-other-user');
    expect(a!.state.token()).not.toBe('at-2');
    expect([a!.expired, b!.expired]).toEqual([[], []]);
  });

  it("a sign-out that a frozen tab handles late does not delete a newer sign-in's refresh token", async () => {
    browser.messageDelayMs = 50;
    const [a, b] = await open(2, { refreshTokenStore: 'local' });
    a!.session.setTokens(idp.signIn());
    await pause(80);
    await a!.session.signOut();
    a!.session.setTokens(idp.signIn());
    await pause(200);
    expect(localStorage.getItem(KEY)).toBe('rt-2');
    expect(a!.state.token()).toBe('at-2');
    expect(b!.expired).toEqual(['signed_out_elsewhere']);
  });

  it("with the 'memory' store, a tab takes no access token from another tab unless it has a session of its own", async () => {
    const [a, b] = await open(2, {});
    a!.session.setTokens(idp.signIn());
    await pause(10);
    expect(b!.state.token()).toBeNull();
    b!.session.setTokens(idp.signIn());
    await pause(10);
    // Each tab has its own refresh token; access tokens are shared between tabs that have one.
    expect(a!.state.token()).toBe('at-2');
    idp.expireAccess();
    expect(await Promise.all([settle(a!.get('/api')), settle(b!.get('/api'))])).toEqual(['ok', 'ok']);
    expect(idp.reuse).toBe(0);
    expect([a!.expired, b!.expired]).toEqual([[], []]);
  });
});
