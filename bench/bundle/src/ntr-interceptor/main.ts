import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { createTokenRefreshInterceptor } from 'ngx-token-refresh';

import { App } from '../app';
import { baseProviders } from '../providers';
import { refreshOptions } from '../refresh-options';

// ngx-token-refresh, the interceptor alone (controller form).
const tokenRefresh = createTokenRefreshInterceptor(refreshOptions);

bootstrapApplication(App, {
  providers: [...baseProviders, provideHttpClient(withInterceptors([tokenRefresh.interceptor]))],
}).catch((error: unknown) => console.error(error));
