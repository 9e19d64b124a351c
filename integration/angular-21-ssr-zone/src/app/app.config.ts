import {
  ApplicationConfig,
  provideBrowserGlobalErrorListeners,
  provideZoneChangeDetection,
  inject,
} from '@angular/core';
import { provideRouter } from '@angular/router';

import { routes } from './app.routes';
import { provideClientHydration, withEventReplay } from '@angular/platform-browser';
import { provideHttpClient, withFetch, withInterceptors, HttpClient } from '@angular/common/http';
import { tokenRefreshInterceptor, provideTokenRefresh, withServerSession } from 'ngx-token-refresh';
import { provideSessionFromCookie } from './session';

export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideZoneChangeDetection({ eventCoalescing: true }),
    provideRouter(routes),
    provideClientHydration(withEventReplay()),
    provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
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
