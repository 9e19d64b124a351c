import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';
import { provideAuth, provideUsersApi } from 'ngx-token-refresh/client';

import { ClientApp } from '../client-app';
import { baseProviders } from '../providers';

// As ntr-client, with cross-tab sync turned on: what withCrossTabSync() costs under provideAuth.
bootstrapApplication(ClientApp, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth' }, withCrossTabSync()),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
}).catch((error: unknown) => console.error(error));
