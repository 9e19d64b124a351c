import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideAuth, provideUsersApi, tokenRefreshInterceptor } from 'ngx-token-refresh';

import { ClientApp } from '../client-app';
import { baseProviders } from '../providers';

// ngx-token-refresh, the interceptor and the service client (AuthClient, UsersService), as in the showcase.
bootstrapApplication(ClientApp, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth' }),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
}).catch((error: unknown) => console.error(error));
