import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { tokenRefreshInterceptor } from 'ngx-token-refresh';
import { provideAuth, provideUsersApi } from 'ngx-token-refresh/client';

import { ClientApp } from '../client-app';
import { baseProviders } from '../providers';

// ngx-token-refresh, the interceptor and the service client (AuthClient, UsersService), as in the
// showcase, with no feature: cross-tab sync off (dev mode would warn; this is a production build).
bootstrapApplication(ClientApp, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth' }),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
}).catch((error: unknown) => console.error(error));
