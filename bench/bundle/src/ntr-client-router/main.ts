import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';
import { tokenRefreshInterceptor } from 'ngx-token-refresh';
import { provideAuth, provideUsersApi } from 'ngx-token-refresh/client';
import { navigateToLogin } from 'ngx-token-refresh/router';

import { ClientApp } from '../client-app';
import { baseProviders } from '../providers';

// As ntr-client, in an app that routes (compared with base-router), with the login redirect.
bootstrapApplication(ClientApp, {
  providers: [
    ...baseProviders,
    provideRouter([]),
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth', onSessionExpired: navigateToLogin }),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
}).catch((error: unknown) => console.error(error));
