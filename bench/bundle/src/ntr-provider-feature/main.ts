import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideTokenRefresh, tokenRefreshInterceptor, withInterceptorOptions } from 'ngx-token-refresh';

import { App } from '../app';
import { baseProviders } from '../providers';
import { refreshOptions } from '../refresh-options';

// ngx-token-refresh, the provider form with one feature: what a feature costs when it is used.
bootstrapApplication(App, {
  providers: [
    ...baseProviders,
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh(refreshOptions, withInterceptorOptions({ allowedOrigins: ['https://api.example.com'] })),
  ],
}).catch((error: unknown) => console.error(error));
