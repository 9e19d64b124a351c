import { ApplicationConfig, provideBrowserGlobalErrorListeners, inject } from '@angular/core';
import { provideRouter } from '@angular/router';
import { routes } from './app.routes';
import { provideClientHydration } from '@angular/platform-browser';
import { provideHttpClient, withInterceptors, HttpClient } from '@angular/common/http';
import { tokenRefreshInterceptor, provideTokenRefresh, withServerSession } from 'ngx-token-refresh';
import { provideSessionFromCookie } from './session';

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
        }),
      extractToken: (response) => (response.body as { accessToken: string }).accessToken,
      attachToken: true,
    }, withServerSession()),
    provideSessionFromCookie(),
  ],
};
