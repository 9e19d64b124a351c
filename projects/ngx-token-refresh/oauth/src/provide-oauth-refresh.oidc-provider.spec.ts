import { HttpClient, HttpErrorResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { EnvironmentInjector } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';

import {
  type TokenRefreshFeature,
  injectTokenRefresh,
  tokenRefreshInterceptor,
  withCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import {
  OAuthError,
  type OAuthRefreshTokenStore,
  OAuthSession,
  type OAuthTokenResponse,
  provideOAuthRefresh,
} from 'ngx-token-refresh/oauth';

import {
  type OidcProviderProcess,
  type ProviderStats,
  startOidcProviderProcess,
} from './oidc-provider-process.spec-helper';

// provideOAuthRefresh against a certified OpenID Provider that nobody here wrote: oidc-provider
// (e2e/oidc/), with strict refresh-token rotation (it has no grace window: a rotated token presented
// again revokes the whole sign-in), 6-second opaque access tokens, and its userinfo endpoint as the
// API. The app is the real preset and HttpClient over real HTTP (jsdom's XMLHttpRequest, CORS
// included: the page is http://localhost, the provider another origin). Tokens come from the
// harness's sign-in (the authorization code flow with PKCE over HTTP); an access token is expired on
// purpose through its hook rather than waited for, except where expiry itself is the subject.

/**
 * Seconds an access token lives. withProactiveRefresh refreshes a quarter of that (1.5 s) ahead, which
 * must cover the provider counting whole seconds: a token issued at 12.9 s ends at 18.0 s, up to a
 * second before its expires_in says.
 */
const ACCESS_TOKEN_TTL = 6;

let provider: OidcProviderProcess;
let storeFolder: string;
let storeFile: string;

beforeAll(async () => {
  storeFolder = mkdtempSync(join(tmpdir(), 'oidc-provider-'));
  storeFile = join(storeFolder, 'store.json');
  provider = await startOidcProviderProcess({
    accessTokenTtl: ACCESS_TOKEN_TTL,
    corsOrigins: [location.origin],
    storeFile,
  });
});

afterEach(() => jest.restoreAllMocks());

afterAll(async () => {
  await provider?.stop();
  rmSync(storeFolder, { recursive: true, force: true });
});

beforeEach(() => provider.resetStats());

describe('provideOAuthRefresh against oidc-provider (strict rotation, no grace window)', () => {
  it('presents the newest refresh token on every refresh: three expiries, three grants, no reuse', async () => {
    const tokens = await provider.signIn();
    const app = signedInApp(tokens);

    for (let expiry = 1; expiry <= 3; expiry++) {
      await provider.expireAccessTokens();
      await expect(app.userinfo()).resolves.toEqual({ sub: 'ada' });
    }

    // Each answer's refresh token replaced the one before; a stale one would have been refused
    // (and the sign-in revoked) at once.
    expect(app.refreshTokensKept).toHaveLength(4);
    expect(new Set(app.refreshTokensKept).size).toBe(4);
    expect(app.refreshTokensKept[0]).toBe(tokens.refresh_token);
    await expectStats({
      refreshGrants: 3,
      refreshFailures: {},
      reuseDetected: 0,
      revoked: 0,
      userinfo: { ok: 3, unauthorized: 3 },
    });
    expect(app.sessionsExpired).toEqual([]);
  });

  it('ends the session once with invalid_grant after a rotated token was used elsewhere: no loop, no retry storm', async () => {
    const tokens = await provider.signIn();
    const app = signedInApp(tokens);
    await provider.expireAccessTokens();
    await app.userinfo(); // rotates: the sign-in's refresh token is spent

    // Someone else (a copy in another place, a thief) presents the spent token: the provider takes it
    // for reuse and revokes the sign-in, this app's live refresh and access tokens included.
    const outside = await provider.refreshFromOutside(tokens.refresh_token);
    expect(outside).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_grant' }) });
    await expectStats({ reuseDetected: 1, revoked: 1 });
    await provider.resetStats();

    const results = await Promise.allSettled([app.userinfo(), app.userinfo(), app.userinfo()]);

    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(OAuthError);
      expect(reason).toMatchObject({ error: 'invalid_grant', status: 400 });
    }
    expect(app.sessionsExpired).toHaveLength(1);
    expect(app.sessionsExpired[0]).toMatchObject({ error: 'invalid_grant' });
    expect(app.session.accessToken()).toBeNull();
    expect(app.store.get()).toBeNull();
    await settle();
    // One refresh grant tried, refused; each call reached the API once and was not repeated.
    await expectStats({
      refreshGrants: 0,
      refreshFailures: { invalid_grant: 1 },
      userinfo: { ok: 0, unauthorized: 3 },
    });
  });

  it('keeps the session through a lost answer, then ends it with invalid_grant: strict rotation cannot recover', async () => {
    muteJsdomNetworkErrors();
    const tokens = await provider.signIn();
    const app = signedInApp(tokens);
    await provider.dropNextRefresh();
    await provider.expireAccessTokens();

    // The provider rotated (the refresh token the app holds is now spent) but the answer never came:
    // status 0, a passing failure for the app, which keeps its session and refresh token.
    const lost = await app.userinfo().catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(HttpErrorResponse);
    expect(lost).toMatchObject({ status: 0 });
    expect(app.sessionsExpired).toEqual([]);
    expect(app.session.accessToken()).toBe(tokens.access_token);
    expect(app.store.get()).toBe(tokens.refresh_token);
    await expectStats({ refreshGrants: 1, droppedAnswers: 1, refreshFailures: {} });

    // The next try sends the only refresh token the app has, which the provider takes for reuse.
    const next = await app.userinfo().catch((error: unknown) => error);
    expect(next).toBeInstanceOf(OAuthError);
    expect(next).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(app.sessionsExpired).toHaveLength(1);
    expect(app.session.accessToken()).toBeNull();
    await settle();
    await expectStats({
      refreshGrants: 1,
      refreshFailures: { invalid_grant: 1 },
      reuseDetected: 1,
      revoked: 1,
    });
  });

  it('makes one refresh grant for 20 concurrent calls with an expired token, and all 20 succeed', async () => {
    const app = signedInApp(await provider.signIn());
    await provider.expireAccessTokens();

    const answers = await Promise.all(Array.from({ length: 20 }, () => app.userinfo()));

    expect(answers).toEqual(Array.from({ length: 20 }, () => ({ sub: 'ada' })));
    // All 20 went out before the first 401 came back; each was repeated once, with the new token.
    await expectStats({
      refreshGrants: 1,
      refreshFailures: {},
      reuseDetected: 0,
      userinfo: { ok: 20, unauthorized: 20 },
    });
  });

  it('refreshes ahead of expiry with the expires_in of the opaque token: no 401 while calls go on', async () => {
    // The defaults: the least interval between refreshes scales down with these short tokens.
    const app = signedInApp(await provider.signIn(), [withProactiveRefresh()]);

    // Calls go on past the sign-in token's expiry; it is refreshed a quarter of its lifetime ahead.
    const until = Date.now() + (ACCESS_TOKEN_TTL + 0.5) * 1000;
    let calls = 0;
    while (Date.now() < until) {
      await expect(app.userinfo()).resolves.toEqual({ sub: 'ada' });
      calls++;
      await sleep(250);
    }

    await expectStats({
      refreshGrants: 1,
      refreshFailures: {},
      reuseDetected: 0,
      userinfo: { ok: calls, unauthorized: 0 },
    });
    expect(app.refreshesAhead()).toBe(1);
    // The refresh's own expires_in planned the next one (the sign-in's planned the first).
    const [first, afterRefresh] = app.refreshesPlanned();
    expect(first).toBeLessThan(until);
    expect(afterRefresh).toBeGreaterThan(until);
  });

  it('issues no refresh token to a sign-in without prompt=consent (the default policy): dev mode warns, and the session ends at the first expiry', async () => {
    expect((await provider.signIn()).refresh_token).toEqual(expect.any(String));
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const tokens = await provider.signInWithoutConsent();
    // OpenID Connect Core §11: offline_access without a consent prompt is dropped from the grant.
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe('openid');

    const app = signedInApp(tokens);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('got a token response without refresh_token'));
    await expect(app.userinfo()).resolves.toEqual({ sub: 'ada' });
    expect(await app.session.restore()).toBe(true); // the access token is still here

    await provider.expireAccessTokens();
    const error: unknown = await app.userinfo().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ error: 'no_refresh_token' });
    expect(app.sessionsExpired).toEqual([error]);
    // Nothing to renew it with: no grant was tried, and a reload would find no session.
    await expectStats({ codeGrants: 2, refreshGrants: 0, refreshFailures: {}, userinfo: { ok: 1, unauthorized: 1 } });
    expect(await app.session.restore()).toBe(false);
  });

  describe('a provider restart', () => {
    it('keeps the session when the provider keeps its grants; a refresh while it is down changes nothing', async () => {
      muteJsdomNetworkErrors();
      const tokens = await provider.signIn();
      const app = signedInApp(tokens);
      await provider.stop();

      const down = await firstValueFrom(app.refresh.refresh()).catch((error: unknown) => error);
      expect(down).toBeInstanceOf(HttpErrorResponse);
      expect(down).toMatchObject({ status: 0 });
      expect(app.sessionsExpired).toEqual([]);
      expect(app.session.accessToken()).toBe(tokens.access_token);
      expect(app.store.get()).toBe(tokens.refresh_token);

      // The access token survived the restart too; then its refresh token refreshes as before.
      await provider.start(storeFile);
      await expect(app.userinfo()).resolves.toEqual({ sub: 'ada' });
      await provider.expireAccessTokens();
      await expect(app.userinfo()).resolves.toEqual({ sub: 'ada' });
      await expectStats({
        refreshGrants: 1,
        refreshFailures: {},
        reuseDetected: 0,
        userinfo: { ok: 2, unauthorized: 1 },
      });
      expect(app.sessionsExpired).toEqual([]);
    });

    it('ends the session cleanly with invalid_grant when the provider forgot it', async () => {
      const app = signedInApp(await provider.signIn());
      await provider.stop();
      await provider.start(undefined);
      try {
        const results = await Promise.allSettled([app.userinfo(), app.userinfo()]);

        for (const result of results) {
          expect((result as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant', status: 400 });
          expect((result as PromiseRejectedResult).reason).toBeInstanceOf(OAuthError);
        }
        expect(app.sessionsExpired).toHaveLength(1);
        expect(app.session.accessToken()).toBeNull();
        await settle();
        await expectStats({ refreshGrants: 0, refreshFailures: { invalid_grant: 1 } });
      } finally {
        await provider.stop();
        await provider.start(storeFile);
      }
    });
  });
});

/**
 * The app of a test: HttpClient with the interceptor, provideOAuthRefresh for the provider's token
 * endpoint, signed in with `tokens`. Its refresh-token store remembers every token it was given.
 */
function signedInApp(tokens: OAuthTokenResponse, features: TokenRefreshFeature[] = []) {
  const sessionsExpired: OAuthError[] = [];
  const refreshTokensKept: string[] = [];
  let current: string | null = null;
  const store: OAuthRefreshTokenStore = {
    get: () => current,
    set: (token) => {
      current = token;
      if (token !== null) refreshTokensKept.push(token);
    },
  };
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideOAuthRefresh(
        {
          tokenEndpoint: `${provider.issuer}/token`,
          clientId: 'spa',
          allowedOrigins: [provider.issuer],
          refreshTokenStore: store,
          onSessionExpired: (error) => sessionsExpired.push(error),
        },
        // A store of the app's counts as shared by the tabs; jsdom has no Web Locks, so this is one tab.
        withCrossTabSync(),
        ...features,
      ),
    ],
  });
  const session = TestBed.inject(OAuthSession);
  const http = TestBed.inject(HttpClient);
  const refresh = injectTokenRefresh({ injector: TestBed.inject(EnvironmentInjector) });
  let ahead = 0;
  const planned: number[] = [];
  refresh.events.subscribe((event) => {
    if (event.type === 'refreshStarted' && event.ahead) ahead++;
    if (event.type === 'refreshScheduled' && event.at !== null) planned.push(event.at);
  });
  session.setTokens(tokens);
  return {
    session,
    store,
    refresh,
    sessionsExpired,
    refreshTokensKept,
    refreshesAhead: () => ahead,
    /** When withProactiveRefresh planned each refresh (device time, ms). */
    refreshesPlanned: () => planned,
    userinfo: () => firstValueFrom(http.get<{ sub: string }>(`${provider.issuer}/me`)),
  };
}

/** Checks the provider's counts: each one given exactly (`refreshFailures: {}`: no failure at all). */
async function expectStats(expected: Partial<ProviderStats>): Promise<void> {
  const stats = await provider.stats();
  expect(stats).toEqual({ ...stats, ...expected });
}

/** jsdom reports every XMLHttpRequest that got no answer on the console; where that is the point, not here. */
function muteJsdomNetworkErrors(): void {
  const error = console.error;
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    if ((args[0] as { type?: unknown } | undefined)?.type !== 'XMLHttpRequest') error(...args);
  });
}

/** Long enough for a refresh loop or a repeated request, had there been one, to reach the provider. */
function settle(): Promise<void> {
  return sleep(300);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
