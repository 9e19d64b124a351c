import { type EnvironmentProviders, inject, makeEnvironmentProviders } from '@angular/core';

import {
  type TokenRefreshFeature,
  ɵRuntimeError as RuntimeError,
  ɵDPOP_KEYS as DPOP_KEYS,
  ɵprovideTokenRefreshPreset as provideTokenRefreshPreset,
  ɵwarnRuntime as warnRuntime,
} from 'ngx-token-refresh';

import { OAUTH_REFRESH_CONFIG, type OAuthRefreshConfig, resolveOAuthRefreshConfig } from './oauth-refresh-config';
import { OAuthSession } from './oauth-session';
import { OAuthSessionState } from './oauth-session-state';
import type { OAuthTokens } from './oauth-token-response';

/**
 * Sets up the token-refresh interceptor for an app that signs in against a standard OAuth 2.0 /
 * OpenID Connect server (Keycloak, Auth0, Okta, Entra ID, Cognito, Ory, `oidc-provider`...): the
 * access token is attached to requests, any number of concurrent 401s make one refresh grant at the
 * token endpoint (RFC 6749 §6: `grant_type=refresh_token`, form-encoded, `client_id` in the body),
 * the failed requests are repeated with the new token, and the rotated refresh token replaces the
 * old one before anything else can send it. The server refusing the refresh (`invalid_grant`: the
 * token expired, was revoked or was used twice) ends the session and calls `onSessionExpired`; one it
 * could not answer (no network, a timeout, 408, 429, a 5xx) keeps it. `expires_in` plans
 * `withProactiveRefresh()` for opaque access tokens.
 *
 * The sign-in itself (the authorization code flow with PKCE) is the job of a sign-in library; give
 * its token response to `OAuthSession.setTokens()`. Add `tokenRefreshInterceptor` to
 * `withInterceptors`. Features are the interceptor's, as for `provideTokenRefresh`; with a refresh
 * token shared by the tabs (`refreshTokenStore: 'local'`), pass `withCrossTabSync()` so that tabs
 * take turns (dev mode warns when neither it nor `withNoCrossTabSync()` is given): a tab then never
 * refreshes without the lock (one that waits longer than `refreshTimeout` fails its refresh with
 * `Timeout` and keeps the session). Everything belongs to the injector that gets these providers:
 * each application, or each environment injector, has its own session and store.
 *
 * @usageNotes
 * ```ts
 * bootstrapApplication(App, {
 *   providers: [
 *     provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
 *     provideOAuthRefresh(
 *       {
 *         tokenEndpoint: 'https://id.example.com/oauth/token',
 *         clientId: 'spa',
 *         refreshTokenStore: 'local',
 *         allowedOrigins: ['https://api.example.com'],
 *         onSessionExpired: () => inject(Router).navigate(['/signed-out']),
 *       },
 *       withCrossTabSync(),
 *       withProactiveRefresh(),
 *     ),
 *   ],
 * });
 * ```
 *
 * @throws in dev mode, when `tokenEndpoint` or `clientId` is missing, an endpoint is plain `http:`
 *   away from localhost, an option has the wrong type, or `withServerSession()` is passed (a server
 *   render never sees a refresh token kept in the browser).
 */
export function provideOAuthRefresh(
  config: OAuthRefreshConfig,
  ...features: TokenRefreshFeature[]
): EnvironmentProviders {
  const resolved = resolveOAuthRefreshConfig(config);
  if (typeof ngDevMode !== 'undefined' && ngDevMode) {
    const kinds = new Set(features.map((feature) => feature?.ɵkind));
    if (kinds.has('ServerSession')) {
      throw new RuntimeError(
        'InvalidOptions',
        "provideOAuthRefresh got withServerSession(); a server render only sees the request's cookies, never the refresh token the browser keeps: render signed-in pages in the browser",
      );
    }
    if (resolved.sharedStore && !kinds.has('CrossTabSync') && !kinds.has('NoCrossTabSync')) {
      warnRuntime(
        'CrossTabSyncNotChosen',
        'provideOAuthRefresh keeps one refresh token for every tab: add withCrossTabSync() so that tabs take turns to refresh (with rotation, two tabs sending one refresh token sign the user out), or withNoCrossTabSync() if your server accepts one refresh token twice',
      );
    }
  }
  return makeEnvironmentProviders([
    // Per injector: each application (each server render, each environment injector) its own store
    // and session, even when these providers are made once in module scope.
    {
      provide: OAUTH_REFRESH_CONFIG,
      useFactory: () => ({
        ...resolved,
        store: resolved.makeStore(),
        // withDPoP() registers its keys here: then only DPoP-bound tokens are taken.
        tokenType: inject(DPOP_KEYS, { self: true, optional: true }) ? 'dpop' : 'bearer',
      }),
    },
    OAuthSessionState,
    OAuthSession,
    provideTokenRefreshPreset(
      // One copy of the refresh token for all tabs: a tab must never send it without the cross-tab lock.
      { caller: 'provideOAuthRefresh', refreshOnlyUnderLock: resolved.sharedStore },
      {
        allowedOrigins: config.allowedOrigins,
        setAuthHeader: config.setAuthHeader,
        refreshOnStatus: config.refreshOnStatus,
        maxRetryCount: config.maxRetryCount,
        refreshTimeout: config.refreshTimeout,
        attachToken: true,
        refreshApiCall: () => inject(OAuthSessionState).refreshGrant(),
        // The grant's answer comes back read and checked (see OAuthSessionState.refreshGrant).
        extractToken: (response) => (response.body as OAuthTokens).accessToken,
        extractExpiresIn: (response) => (response.body as OAuthTokens).expiresIn,
        onRefreshSuccess: (_token, response) => inject(OAuthSessionState).renewed(response.body as OAuthTokens),
        onRefreshFailure: (error) => inject(OAuthSessionState).refreshFailed(error),
      },
      features,
    ),
  ]);
}
