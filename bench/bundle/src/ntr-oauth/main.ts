import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { inject, provideAppInitializer } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { tokenRefreshInterceptor } from 'ngx-token-refresh';
import { OAuthSession, provideOAuthRefresh } from 'ngx-token-refresh/oauth';

import { App } from '../app';
import { baseProviders } from '../providers';

// ngx-token-refresh's OAuth preset with no feature: the refresh grant at the token endpoint, and the
// session brought back at start-up. The sign-in is another library's (see ntr-oauth-oauth4webapi).
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideOAuthRefresh({ tokenEndpoint: 'https://id.example.com/oauth/token', clientId: 'spa' }),
    provideAppInitializer(() => inject(OAuthSession).restore()),
  ],
}).catch((error: unknown) => console.error(error));
