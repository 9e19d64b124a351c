import { ApplicationConfig, provideBrowserGlobalErrorListeners, inject } from '@angular/core';
import { provideRouter } from '@angular/router';
import { routes } from './app.routes';
import { provideClientHydration } from '@angular/platform-browser';
import { provideHttpClient, withInterceptors, HttpClient } from '@angular/common/http';
import { tokenRefreshInterceptor, provideTokenRefresh } from 'ngx-token-refresh';
import { forwardedCookies, provideSessionFromCookie } from './session';

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideRouter(routes),
    provideClientHydration(),
    provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
    provideTokenRefresh({
      refreshApiCall: () =>
        inject(HttpClient).post('/auth/refresh', null, {
          observe: 'response',
          withCredentials: true,
          headers: forwardedCookies(),
        }),
      extractToken: (response) => (response.body as { accessToken: string }).accessToken,
      attachToken: true,
    }),
    provideSessionFromCookie(),
  ],
};
