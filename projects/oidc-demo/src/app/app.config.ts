import { provideHttpClient, withInterceptors } from '@angular/common/http';
import {
  type ApplicationConfig,
  inject,
  provideAppInitializer,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import { provideRouter } from '@angular/router';
import { tokenRefreshInterceptor, withCrossTabSync, withDPoP, withProactiveRefresh } from 'ngx-token-refresh';
import { OAuthSession, provideOAuthRefresh } from 'ngx-token-refresh/oauth';

import { routes } from './app.routes';
import { AUTHORIZATION_SERVER, CLIENT, type DemoSetup, USE_DPOP } from './authorization-server';
import { RefreshActivity } from './refresh-activity';

/**
 * The application's providers, for the provider whose metadata `server` is; with `dpop`, the tokens
 * are bound to a key of this browser (the same key in every tab and after a reload); with
 * `refreshAhead`, `withProactiveRefresh()`.
 */
export function createAppConfig({ server, dpop, refreshAhead }: DemoSetup): ApplicationConfig {
  return {
    providers: [
      provideBrowserGlobalErrorListeners(),
      provideZonelessChangeDetection(),
      provideRouter(routes),
      { provide: AUTHORIZATION_SERVER, useValue: server },
      { provide: USE_DPOP, useValue: dpop },
      // Either backend works in the browser (fetch is Angular 22's default; withFetch() is deprecated there).
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideOAuthRefresh(
        {
          tokenEndpoint: server.token_endpoint ?? '',
          clientId: CLIENT.client_id,
          // Shared by the tabs and kept over a reload; withCrossTabSync makes them take turns with it,
          // so a rotated refresh token is never presented twice.
          refreshTokenStore: 'local',
          // userinfo, the protected resource here, lives with the provider.
          allowedOrigins: [new URL(server.issuer).origin],
          revocationEndpoint: server.revocation_endpoint,
          // The provider refused the refresh token (expired, revoked, used twice), or another tab signed out.
          onSessionExpired: (error) => inject(RefreshActivity).endedBecause.set(error),
        },
        withCrossTabSync(),
        ...(refreshAhead ? [withProactiveRefresh()] : []),
        ...(dpop ? [withDPoP()] : []),
      ),
      provideAppInitializer(() => {
        // Counts from the first event on, the restore's refresh included.
        inject(RefreshActivity);
        // After a reload: a new access token from the stored refresh token, before the first call.
        return inject(OAuthSession).restore();
      }),
    ],
  };
}
