import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { provideAppInitializer } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { type TokenRefreshFeature, tokenRefreshInterceptor } from 'ngx-token-refresh';
import { provideOAuthRefresh } from 'ngx-token-refresh/oauth';

import { App } from '../app';
import { baseProviders } from '../providers';
import { CLIENT, discover, signIn } from './oauth4webapi-sign-in';

/**
 * The whole stack of an app that uses the OAuth preset: discovery, the sign-in with oauth4webapi
 * (authorization code flow with PKCE), then the refresh by `provideOAuthRefresh` with `features`.
 */
export function bootstrapWithSignIn(...features: TokenRefreshFeature[]): void {
  discover()
    .then((server) =>
      bootstrapApplication(App, {
        providers: [
          ...baseProviders,
          provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
          provideOAuthRefresh({ tokenEndpoint: server.token_endpoint ?? '', clientId: CLIENT.client_id }, ...features),
          provideAppInitializer(() => signIn(server)),
        ],
      }),
    )
    .catch((error: unknown) => console.error(error));
}
