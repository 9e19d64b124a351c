import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideTokenRefresh, tokenRefreshInterceptor, withCrossTabSync } from 'ngx-token-refresh';

import { App } from '../app';
import { baseProviders } from '../providers';
import { refreshOptions } from '../refresh-options';

// ngx-token-refresh, the interceptor with cross-tab sync: what that feature costs when it is used.
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh(refreshOptions, withCrossTabSync()),
  ],
}).catch((error: unknown) => console.error(error));
