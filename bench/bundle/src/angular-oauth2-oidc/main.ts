import { provideHttpClient, withInterceptorsFromDi } from '@angular/common/http';
import { inject, provideAppInitializer } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { OAuthService, provideOAuthClient } from 'angular-oauth2-oidc';

import { App } from '../app';
import { baseProviders } from '../providers';

// What an app that signs in and refreshes with angular-oauth2-oidc ships: its interceptor attaching
// the access token, the code flow with PKCE (its default for responseType 'code'), discovery, the
// code exchange on return, and the refresh-token grant ahead of expiry (setupAutomaticSilentRefresh
// with useSilentRefresh off). It does the sign-in too: compare with ntr-oauth-oauth4webapi.
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptorsFromDi()),
    provideOAuthClient({ resourceServer: { allowedUrls: ['/api'], sendAccessToken: true } }),
    provideAppInitializer(async () => {
      const oauth = inject(OAuthService);
      oauth.configure({
        issuer: 'https://id.example.com',
        clientId: 'spa',
        redirectUri: `${location.origin}/callback`,
        responseType: 'code',
        scope: 'openid offline_access',
        useSilentRefresh: false,
      });
      oauth.setupAutomaticSilentRefresh();
      await oauth.loadDiscoveryDocumentAndTryLogin();
      if (!oauth.hasValidAccessToken()) oauth.initCodeFlow();
    }),
  ],
}).catch((error: unknown) => console.error(error));
