import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideTokenRefresh, tokenRefreshInterceptor, withProactiveRefresh } from 'ngx-token-refresh';

import { App } from '../app';
import { baseProviders } from '../providers';
import { refreshOptions } from '../refresh-options';

// ngx-token-refresh, the interceptor with proactive refresh: what that feature costs when it is used.
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh(refreshOptions, withProactiveRefresh()),
  ],
}).catch((error: unknown) => console.error(error));
