import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { tokenRefreshInterceptor, withCrossTabSync, withIdleTimeout } from 'ngx-token-refresh';
import { provideAuth, provideUsersApi } from 'ngx-token-refresh/client';

import { ClientApp } from '../client-app';
import { baseProviders } from '../providers';

// As ntr-client-cross-tab, with an idle timeout: what withIdleTimeout() costs under provideAuth.
bootstrapApplication(ClientApp, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideAuth({ baseUrl: '/auth' }, withCrossTabSync(), withIdleTimeout({ idle: 15 * 60_000 })),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
}).catch((error: unknown) => console.error(error));
