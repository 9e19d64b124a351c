import {
  HttpClient,
  HttpErrorResponse,
  type HttpInterceptorFn,
  provideHttpClient,
  withInterceptors,
  withInterceptorsFromDi,
} from '@angular/common/http';
import {
  type ApplicationRef,
  type EnvironmentProviders,
  type Provider,
  inject,
  provideEnvironmentInitializer,
  provideZonelessChangeDetection,
} from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import {
  MemoryStorage,
  type OAuthEvent,
  OAuthService,
  OAuthLogger,
  OAuthStorage,
  OAuthSuccessEvent,
  type ParsedIdToken,
  provideOAuthClient,
} from 'angular-oauth2-oidc';
import {
  type TokenRefreshFeature,
  type TokenRefreshRef,
  injectTokenRefresh,
  tokenRefreshInterceptor,
  withCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Subject, catchError, firstValueFrom, from, switchMap, throwError } from 'rxjs';

import {
  type OidcProviderProcess,
  type TokenResponse,
  startOidcProviderProcess,
} from '../../ngx-token-refresh/oauth/src/oidc-provider-process.spec-helper';
import { FakeBrowser } from '../../ngx-token-refresh/src/lib/internal/fake-tabs.spec-helper';
import {
  type AngularOAuth2OidcRefreshOptions,
  provideAngularOAuth2OidcRefresh,
} from './provide-angular-oauth2-oidc-refresh';

// The recipe of docs/recipes/angular-oauth2-oidc.md against a certified OpenID Provider: oidc-provider
// (e2e/oidc/), strict refresh-token rotation (a rotated token presented again revokes the whole
// sign-in), opaque access tokens, its userinfo endpoint as the API. The apps are angular-oauth2-oidc
// 21 and the gate over real HTTP (jsdom's XMLHttpRequest, CORS included: the page is
// http://localhost, the provider another origin); angular-oauth2-oidc loads the provider's discovery
// document and sends every refresh grant itself. Tokens come from the harness's sign-in (the
// authorization code flow with PKCE over HTTP) and are stored as angular-oauth2-oidc's own code flow
// stores them. Access tokens are expired through the harness's hook, not waited for.

let provider: OidcProviderProcess;
let userinfo: string;

beforeAll(async () => {
  // A lifetime no test reaches: every expiry here is the hook's.
  provider = await startOidcProviderProcess({ accessTokenTtl: 60, corsOrigins: [location.origin] });
  userinfo = `${provider.issuer}/me`;
});

afterAll(() => provider?.stop());

beforeEach(async () => {
  sessionStorage.clear();
  localStorage.clear();
  await provider.resetStats();
});

describe('angular-oauth2-oidc behind the gate (the recipe), against oidc-provider', () => {
  it('makes one refresh grant for 20 concurrent calls with an expired token, and repeats all 20', async () => {
    const app = await openApp(withGate());
    const signedIn = await signIn(app);
    // The sign-in's token reached the gate: a call goes through with it, nothing refreshed.
    expect(await app.burst(1)).toEqual([200]);
    expect(app.gate.token()).toBe(signedIn.access_token);
    await provider.expireAccessTokens();
    await provider.resetStats();

    const results = await app.burst(20);

    expect(results).toEqual(Array(20).fill(200));
    // All 20 left with the expired token before any answer came; one refresh, then 20 repeats.
    expect(await provider.stats()).toMatchObject({
      refreshGrants: 1,
      refreshFailures: {},
      reuseDetected: 0,
      userinfo: { ok: 20, unauthorized: 20 },
    });
    expect(app.events.filter((type) => type.startsWith('refresh'))).toEqual(['refreshStarted', 'refreshSucceeded']);
    // angular-oauth2-oidc's own grant, sent inside refreshApiCall: the gate let it by without a token.
    expect(app.tokenEndpointAuthorization).toEqual([null]);
    // The new tokens are angular-oauth2-oidc's: in its storage, and the gate's token is its access token.
    expect(app.oauth.getAccessToken()).not.toBe(signedIn.access_token);
    expect(app.gate.token()).toBe(app.oauth.getAccessToken());
    expect(app.expired).toEqual([]);
    app.close();
  });

  it("stores the rotated refresh token in angular-oauth2-oidc's storage, and refreshes with it at the next expiry", async () => {
    const app = await openApp(withGate());
    const signedIn = await signIn(app);
    const presented: string[] = [];
    for (let expiry = 1; expiry <= 3; expiry++) {
      presented.push(app.oauth.getRefreshToken());
      await provider.expireAccessTokens();
      expect(await app.burst(5)).toEqual([200, 200, 200, 200, 200]);
      expect(sessionStorage.getItem('refresh_token')).not.toBe(presented.at(-1));
    }

    expect(presented[0]).toBe(signedIn.refresh_token);
    expect(new Set(presented).size).toBe(3);
    expect(await provider.stats()).toMatchObject({
      refreshGrants: 3,
      refreshFailures: {},
      reuseDetected: 0,
      revoked: 0,
    });
    app.close();
  });

  it('rejects every waiting call once when the provider refuses the refresh token, ends the sign-in once, and stops', async () => {
    const app = await openApp(withGate());
    const signedIn = await signIn(app);
    // A copy of the refresh token used elsewhere first: the app's is spent, and presenting it revokes the sign-in.
    expect(await provider.refreshFromOutside(signedIn.refresh_token)).toMatchObject({ status: 200 });
    await provider.expireAccessTokens();
    await provider.resetStats();

    const results = await app.burst(10, (error) => error);

    // A call waiting for the refresh gets its error; one whose 401 came back after the refusal gets
    // that 401 (the token it was sent with is gone, so nothing is refreshed or repeated for it).
    for (const error of results) expect(error).toBeInstanceOf(HttpErrorResponse);
    const refused = results.filter((error) => (error as HttpErrorResponse).status === 400);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused).toEqual(
      refused.map(() =>
        expect.objectContaining({ error: { error: 'invalid_grant', error_description: expect.any(String) } }),
      ),
    );
    expect(results.filter((error) => ![400, 401].includes((error as HttpErrorResponse).status))).toEqual([]);
    expect(app.expired).toHaveLength(1);
    expect(app.oauth.getRefreshToken()).toBeNull();
    expect(app.oauth.getAccessToken()).toBeNull();
    expect(app.gate.token()).toBeNull();
    await pause(300);
    const stats = await provider.stats();
    expect(stats).toMatchObject({ refreshGrants: 0, refreshFailures: { invalid_grant: 1 }, reuseDetected: 1 });
    // Each call reached the API once: no repeat after the refused refresh, no second refresh.
    expect(stats.userinfo).toEqual({ ok: 0, unauthorized: 10 });

    // A later call goes out without a token; its 401 starts a refresh that fails at once, with no
    // refresh token to send (nothing reaches the token endpoint), and onSessionExpired runs again.
    await expect(firstValueFrom(app.http.get(userinfo))).rejects.toMatchObject({ name: 'NoRefreshTokenError' });
    expect(app.expired).toHaveLength(2);
    expect(await provider.stats()).toMatchObject({ refreshGrants: 0, refreshFailures: { invalid_grant: 1 } });
    app.close();
  });

  it('keeps the session when the answer of a refresh is lost, then loses it to strict rotation', async () => {
    const app = await openApp(withGate());
    const signedIn = await signIn(app);
    await provider.dropNextRefresh();
    await provider.expireAccessTokens();

    // The provider rotated, the answer never came (status 0): not a refusal, so the session stays,
    // with the refresh token angular-oauth2-oidc still holds, which the provider has spent. (jsdom
    // reports the dropped connection on the console.)
    const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await app.burst(1)).toEqual([0]);
    expect(consoleError).toHaveBeenCalledWith(
      expect.objectContaining({ message: expect.stringContaining('socket hang up') }),
    );
    consoleError.mockRestore();
    expect(app.expired).toEqual([]);
    expect(app.oauth.getRefreshToken()).toBe(signedIn.refresh_token);

    // The next refresh presents it: reuse, the sign-in revoked, and now the session ends.
    expect(await app.burst(1)).toEqual([400]);
    expect(app.expired).toHaveLength(1);
    expect(await provider.stats()).toMatchObject({
      refreshGrants: 1,
      droppedAnswers: 1,
      refreshFailures: { invalid_grant: 1 },
      reuseDetected: 1,
    });
    app.close();
  });

  it('after a reload, hands the stored access token to the gate with the time it has left, for withProactiveRefresh', async () => {
    // 20 s ahead of expiry, at most a quarter of the lifetime: for the 60-second token of a sign-in or
    // a refresh, 15 s ahead; for a token put back after a reload, a quarter of what is left of it.
    const ahead = withProactiveRefresh({ leadTime: 20_000 });
    const first = await openApp(withGate(ahead));
    await signIn(first);
    expect(first.events).toEqual(['refreshScheduled(45 s)']);
    first.close();

    // The same sessionStorage, a new application: the page was reloaded.
    const reloaded = await openApp(withGate(ahead));
    expect(reloaded.gate.token()).toBe(reloaded.oauth.getAccessToken());
    expect(reloaded.events).toEqual(['refreshScheduled(45 s)']);
    expect(await reloaded.burst(1)).toEqual([200]);

    // A refresh's expires_in plans the next one.
    await provider.expireAccessTokens();
    expect(await reloaded.burst(1)).toEqual([200]);
    expect(reloaded.events.filter((type) => type.startsWith('refresh'))).toEqual([
      'refreshScheduled(45 s)',
      'refreshStarted',
      'refreshScheduled(45 s)',
      'refreshSucceeded',
    ]);
    expect(await provider.stats()).toMatchObject({ refreshGrants: 1, reuseDetected: 0 });
    reloaded.close();
  });

  it('does not refresh at once after a reload, before angular-oauth2-oidc knows its token endpoint', async () => {
    await signIn(await openApp(withGate()));

    // A reload with the default lead time (a minute), longer than the 60-second token: the refresh is
    // planned a quarter of what is left early, not at once while the discovery document (and so the
    // token endpoint) is still loading.
    const reloaded = await openApp(withGate(withProactiveRefresh()));
    expect(reloaded.events.filter((type) => type.startsWith('refresh'))).toEqual(['refreshScheduled(45 s)']);
    expect(reloaded.expired).toEqual([]);
    expect(reloaded.gate.token()).toBe(reloaded.oauth.getAccessToken());
    expect(await reloaded.burst(1)).toEqual([200]);
    expect(await provider.stats()).toMatchObject({ refreshGrants: 0, refreshFailures: {} });
    reloaded.close();
  });

  it('keeps the session when a call meets an expired token before angular-oauth2-oidc knows its token endpoint', async () => {
    const signedIn = await signIn(await openApp(withGate()));
    await provider.expireAccessTokens();

    // A reload whose first call comes before the discovery document: refreshToken() throws at once.
    const reloaded = await openAppBeforeDiscovery(withGate());
    const [error] = await reloaded.burst(1, (failure) => failure);

    expect(error).toEqual(new Error("'tokenEndpoint' should not be null"));
    expect(reloaded.expired).toEqual([]);
    expect(reloaded.oauth.getRefreshToken()).toBe(signedIn.refresh_token);

    await reloaded.oauth.loadDiscoveryDocument();
    expect(await reloaded.burst(2)).toEqual([200, 200]);
    expect(await provider.stats()).toMatchObject({ refreshGrants: 1, refreshFailures: {} });
    reloaded.close();
  });

  it('ends the session when angular-oauth2-oidc asks for more scope than the sign-in granted', async () => {
    const app = await openApp(withGate());
    await signIn(app);
    // angular-oauth2-oidc sends its `scope` with every refresh grant; its default asks for `profile`.
    app.oauth.scope = 'openid profile';
    await provider.expireAccessTokens();

    const [error] = await app.burst(1, (failure) => failure);

    expect(error).toMatchObject({ status: 400, error: { error: 'invalid_scope' } });
    expect(app.expired).toHaveLength(1);
    expect(await provider.stats()).toMatchObject({ refreshGrants: 0, refreshFailures: { invalid_scope: 1 } });
    app.close();
  });

  it("signs out with revokeTokenAndLogout when the identity server's origin is not among allowedOrigins", async () => {
    // The API here is the provider's own userinfo, so the other tests list its origin. An app whose
    // APIs live elsewhere does not, and angular-oauth2-oidc's revocation request goes out as it made it.
    const app = await openApp(withGateFor({ allowedOrigins: ['https://api.example.com'] }));
    const signedIn = await signIn(app);

    // `true`: no redirect to the provider's end-session page.
    await app.oauth.revokeTokenAndLogout(true);

    expect(app.gate.token()).toBeNull();
    expect(app.oauth.getRefreshToken()).toBeNull();
    expect(await provider.refreshFromOutside(signedIn.refresh_token)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    app.close();

    // With its origin listed, the gate writes the access token into the revocation request too, and
    // the provider refuses the request (a public client authenticates with client_id alone).
    const listed = await openApp(withGate());
    await signIn(listed);
    await expect(listed.oauth.revokeTokenAndLogout(true)).rejects.toMatchObject({
      status: 400,
      error: expect.stringContaining('invalid_request'),
    });
    listed.close();
  });

  describe('with angular-oauth2-oidc alone (what its users get today)', () => {
    it('fails all 20 calls with 401 once the access token expired: its interceptor neither refreshes nor repeats', async () => {
      const app = await openApp(withItsInterceptorOnly());
      await signIn(app);
      await provider.expireAccessTokens();

      const results = await app.burst(20);

      expect(results).toEqual(Array.from({ length: 20 }, () => 401));
      expect(await provider.stats()).toMatchObject({ refreshGrants: 0, userinfo: { ok: 0, unauthorized: 20 } });
      app.close();
    });

    it('ends the sign-in with a refresh-on-401 interceptor of its own: 20 refresh grants with one refresh token', async () => {
      const app = await openApp(withItsInterceptorOnly(refreshOnEach401));
      const signedIn = await signIn(app);
      await provider.expireAccessTokens();

      const results = await app.burst(20);

      const stats = await provider.stats();
      // Each 401 called refreshToken() with the same refresh token: one grant won, the others were
      // taken for reuse, and the first reuse revoked the sign-in, the winner's new tokens included.
      expect(stats.refreshGrants + (stats.refreshFailures['invalid_grant'] ?? 0)).toBe(20);
      expect(stats.reuseDetected).toBeGreaterThanOrEqual(1);
      expect(stats.revoked).toBeGreaterThanOrEqual(1);
      expect(results.filter((status) => status !== 200).length).toBeGreaterThanOrEqual(19);
      // Whatever angular-oauth2-oidc kept is dead: the sign-in is gone.
      const kept = app.oauth.getRefreshToken();
      expect(kept).not.toBe(signedIn.refresh_token);
      expect(await provider.refreshFromOutside(kept)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      app.close();
    });
  });

  describe('tabs (two apps in one page, Web Locks and BroadcastChannel faked, HTTP real)', () => {
    let browser: FakeBrowser;

    beforeEach(() => {
      browser = new FakeBrowser();
      browser.install();
    });

    afterEach(() => browser.uninstall());

    it('refreshes once for both tabs when they share localStorage, and the other tab goes on with the rotated token', async () => {
      const shared: Provider = { provide: OAuthStorage, useFactory: () => localStorage };
      const a = await browser.as(1, () => openApp(withGate(withCrossTabSync()), shared));
      const b = await browser.as(2, () => openApp(withGate(withCrossTabSync()), shared));
      await signIn(a);
      await pause(50);
      expect(b.gate.token()).toBe(a.oauth.getAccessToken());
      expect(localStorage.getItem('refresh_token')).toBe(a.oauth.getRefreshToken());
      expect(sessionStorage.getItem('refresh_token')).toBeNull();

      // Both tabs meet the expired token at once: one refresh under the lock, the other tab takes its token.
      await provider.expireAccessTokens();
      expect(await Promise.all([a.burst(5), b.burst(5)])).toEqual([Array(5).fill(200), Array(5).fill(200)]);
      expect(await provider.stats()).toMatchObject({ refreshGrants: 1, reuseDetected: 0 });

      // Next expiry, only tab B is busy: it reads the refresh token tab A rotated, from localStorage.
      await provider.expireAccessTokens();
      expect(await b.burst(5)).toEqual(Array(5).fill(200));
      expect(await a.burst(1)).toEqual([200]);
      expect(await provider.stats()).toMatchObject({ refreshGrants: 2, refreshFailures: {}, reuseDetected: 0 });
      expect([a.expired, b.expired]).toEqual([[], []]);
      a.close();
      b.close();
    });

    it('loses the sign-in with shared localStorage but without withCrossTabSync: two tabs send one refresh token at once', async () => {
      const shared: Provider = { provide: OAuthStorage, useFactory: () => localStorage };
      const a = await browser.as(1, () => openApp(withGate(), shared));
      const b = await browser.as(2, () => openApp(withGate(), shared));
      await signIn(a);
      await provider.expireAccessTokens();

      const [inA, inB] = await Promise.all([a.burst(3), b.burst(3)]);

      // Each tab's gate made one refresh, both with the token in localStorage: the second is reuse.
      expect(await provider.stats()).toMatchObject({ refreshGrants: 1, refreshFailures: { invalid_grant: 1 } });
      expect(await provider.stats()).toMatchObject({ reuseDetected: 1, revoked: 1 });
      expect([...inA, ...inB]).toContain(400);
      a.close();
      b.close();
    });

    it('loses the sign-in with per-tab storage in a duplicated tab: its copy of the refresh token is spent once the first tab rotates', async () => {
      const first = new MemoryStorage();
      const a = await browser.as(1, () => openApp(withGate(withCrossTabSync()), storage(first)));
      await signIn(a);
      // Duplicating a tab copies its sessionStorage: the same refresh token, twice.
      const b = await browser.as(2, () => openApp(withGate(withCrossTabSync()), storage(copyOf(first))));

      await provider.expireAccessTokens();
      expect(await a.burst(3)).toEqual([200, 200, 200]);
      // Tab B was given tab A's new access token, but its storage still holds the spent refresh token.
      expect(b.gate.token()).toBe(a.oauth.getAccessToken());
      expect(b.oauth.getRefreshToken()).not.toBe(a.oauth.getRefreshToken());

      await provider.expireAccessTokens();
      const results = await b.burst(3);

      // The refusal (400), or a call's own 401 when it came back after the refusal.
      expect(results).toContain(400);
      expect(results.filter((status) => status !== 400 && status !== 401)).toEqual([]);
      expect(await provider.stats()).toMatchObject({ refreshGrants: 1, reuseDetected: 1, revoked: 1 });
      expect(b.expired).toHaveLength(1);
      // Tab B's logout signs tab A out too (withCrossTabSync); A's refresh token was revoked anyway.
      await pause(50);
      expect(a.gate.token()).toBeNull();
      a.close();
      b.close();
    });
  });
});

it('shows in docs/recipes/angular-oauth2-oidc.md exactly the code this spec runs', () => {
  const code = readFileSync(join(__dirname, 'provide-angular-oauth2-oidc-refresh.ts'), 'utf8');
  const doc = readFileSync(join(__dirname, '../../../docs/recipes/angular-oauth2-oidc.md'), 'utf8');
  // Four backticks: the code's own doc comment holds a fenced example.
  expect(doc).toContain(`\`\`\`\`ts\n${code}\`\`\`\`\n`);
});

/** What one application saw, filled while it runs. */
interface Record {
  /** What `onSessionExpired` was called with. */
  readonly expired: unknown[];
  /**
   * The gate's events, by type, from its start; `refreshScheduled` with the seconds until `at`, to the
   * nearest 5 (the provider's `expires_in` and the clock between steps count whole seconds).
   */
  readonly events: string[];
  /** What angular-oauth2-oidc logged as errors. */
  readonly logged: unknown[];
  /** The `Authorization` header of each request to the token endpoint, as it left the app. */
  readonly tokenEndpointAuthorization: (string | null)[];
}

/** One application: angular-oauth2-oidc configured for the provider, and what the test reads of it. */
interface App extends Record {
  readonly http: HttpClient;
  readonly oauth: OAuthService;
  /** The gate, when the app has it. */
  readonly gate: TokenRefreshRef;
  /**
   * Sends `count` calls to userinfo at once; each one's status (200, or its error's), or, with
   * `onError`, what that makes of the error.
   */
  burst(count: number, onError?: (error: unknown) => unknown): Promise<unknown[]>;
  close(): void;
}

/** The providers of an app, given where to record what it does. */
type Setup = (record: Record) => (Provider | EnvironmentProviders)[];

/** The recipe: the gate in front of angular-oauth2-oidc, which has no `sendAccessToken` of its own. */
function withGate(...features: TokenRefreshFeature[]): Setup {
  return withGateFor({}, ...features);
}

/** {@link withGate} with other options; by default the API is the provider's userinfo, so its origin is allowed. */
function withGateFor(options: Partial<AngularOAuth2OidcRefreshOptions>, ...features: TokenRefreshFeature[]): Setup {
  return (record) => [
    provideHttpClient(
      withInterceptors([
        tokenRefreshInterceptor,
        (request, next) => {
          if (request.url === `${provider.issuer}/token`) {
            record.tokenEndpointAuthorization.push(request.headers.get('Authorization'));
          }
          return next(request);
        },
      ]),
    ),
    provideOAuthClient(),
    // First, so that it sees what the recipe's own start-up does.
    provideEnvironmentInitializer(() =>
      injectTokenRefresh().events.subscribe((event) =>
        record.events.push(
          event.type === 'refreshScheduled' && event.at !== null
            ? `refreshScheduled(${Math.abs(Math.round((event.at - Date.now()) / 5000) * 5)} s)`
            : event.type,
        ),
      ),
    ),
    provideAngularOAuth2OidcRefresh(
      {
        allowedOrigins: [provider.issuer],
        onSessionExpired: (error) => record.expired.push(error),
        ...options,
      },
      ...features,
    ),
  ];
}

/** angular-oauth2-oidc as its documentation sets it up: its interceptor sends the token to the API. */
function withItsInterceptorOnly(...interceptors: HttpInterceptorFn[]): Setup {
  return () => [
    provideHttpClient(withInterceptors(interceptors), withInterceptorsFromDi()),
    provideOAuthClient({ resourceServer: { allowedUrls: [userinfo], sendAccessToken: true } }),
  ];
}

/**
 * The hand-written fix asked for in angular-oauth2-oidc's issues (#414, #1038): on a 401, call
 * `refreshToken()` and repeat the request (its own interceptor, after this one, writes the new token).
 */
const refreshOnEach401: HttpInterceptorFn = (request, next) => {
  const oauth = inject(OAuthService);
  return next(request).pipe(
    catchError((error: unknown) =>
      error instanceof HttpErrorResponse && error.status === 401
        ? from(oauth.refreshToken()).pipe(switchMap(() => next(request)))
        : throwError(() => error),
    ),
  );
};

/** Starts an app, and has angular-oauth2-oidc load the provider's discovery document. */
async function openApp(setup: Setup, ...providers: Provider[]): Promise<App> {
  const app = await openAppBeforeDiscovery(setup, ...providers);
  await app.oauth.loadDiscoveryDocument();
  return app;
}

/** Starts an app with angular-oauth2-oidc configured, its discovery document (so its token endpoint) not loaded. */
async function openAppBeforeDiscovery(setup: Setup, ...providers: Provider[]): Promise<App> {
  const record: Record = { expired: [], events: [], logged: [], tokenEndpointAuthorization: [] };
  const quiet = () => undefined;
  const logger: OAuthLogger = {
    debug: quiet,
    info: quiet,
    log: quiet,
    warn: quiet,
    error: (...args) => record.logged.push(args),
  };
  const app: ApplicationRef = await createApplication({
    providers: [
      provideZonelessChangeDetection(),
      ...setup(record),
      { provide: OAuthLogger, useValue: logger },
      ...providers,
    ],
  });
  const oauth = app.injector.get(OAuthService);
  oauth.configure({
    issuer: provider.issuer,
    clientId: 'spa',
    responseType: 'code',
    redirectUri: `${location.origin}/`,
    // Sent with every refresh grant: it must stay within what the sign-in granted.
    scope: 'openid offline_access',
  });
  const http = app.injector.get(HttpClient);
  const status = (error: unknown) => (error instanceof HttpErrorResponse ? error.status : error);
  return {
    ...record,
    http,
    oauth,
    get gate() {
      return injectTokenRefresh({ injector: app.injector });
    },
    burst: (count, onError = status) =>
      Promise.all(
        Array.from({ length: count }, () =>
          firstValueFrom(http.get(userinfo)).then(
            () => 200,
            (error: unknown) => onError(error),
          ),
        ),
      ),
    close: () => app.destroy(),
  };
}

/**
 * Signs in through the harness (the code flow with PKCE over HTTP), then stores the answer as
 * angular-oauth2-oidc's code flow does once it has exchanged the code (its `fetchAndProcessToken`):
 * the tokens, the validated ID token, then `token_received` and `token_refreshed`.
 */
async function signIn(app: App): Promise<TokenResponse> {
  const tokens = await provider.signIn();
  const internals = app.oauth as unknown as {
    storeAccessTokenResponse(accessToken: string, refreshToken: string, expiresIn: number, scope: string): void;
    storeIdToken(idToken: ParsedIdToken): void;
    eventsSubject: Subject<OAuthEvent>;
  };
  internals.storeAccessTokenResponse(tokens.access_token, tokens.refresh_token, tokens.expires_in, tokens.scope);
  // No nonce check: the harness's sign-in sent none.
  internals.storeIdToken(await app.oauth.processIdToken(tokens.id_token, tokens.access_token, true));
  internals.eventsSubject.next(new OAuthSuccessEvent('token_received'));
  internals.eventsSubject.next(new OAuthSuccessEvent('token_refreshed'));
  return tokens;
}

function storage(store: OAuthStorage): Provider {
  return { provide: OAuthStorage, useValue: store };
}

/** A copy of `store`, as a browser copies a tab's sessionStorage into the tab that duplicates it. */
function copyOf(store: MemoryStorage): MemoryStorage {
  const copy = new MemoryStorage();
  for (const [key, value] of (store as unknown as { data: Map<string, string> }).data) copy.setItem(key, value);
  return copy;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
