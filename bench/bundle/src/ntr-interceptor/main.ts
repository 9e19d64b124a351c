import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideTokenRefresh, tokenRefreshInterceptor } from 'ngx-token-refresh';

import { App } from '../app';
import { baseProviders } from '../providers';
import { refreshOptions } from '../refresh-options';

// ngx-token-refresh, the interceptor alone, in its one form: no feature passed.
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh(refreshOptions),
  ],
}).catch((error: unknown) => console.error(error));
