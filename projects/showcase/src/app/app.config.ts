import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import {
  type ApplicationConfig,
  inject,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import { provideTokenRefresh, tokenRefreshInterceptor } from 'ngx-token-refresh';

/** The showcase's providers; the in-memory backend and pages arrive with the showcase issue. */
export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideZonelessChangeDetection(),
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh({
      refreshApiCall: () =>
        inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }),
      extractToken: (response) => (response.body as { accessToken: string }).accessToken,
      attachToken: true,
    }),
  ],
};
