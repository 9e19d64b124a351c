import { provideHttpClient, withInterceptors } from '@angular/common/http';
import {
  type ApplicationConfig,
  inject,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import { Router, provideRouter, withComponentInputBinding } from '@angular/router';
import { provideAuth, provideUsersApi, tokenRefreshInterceptor } from 'ngx-token-refresh';

import { routes } from './app.routes';
import { demoBackendInterceptors } from './backend/demo-backend-interceptors';
import { provideDemoBackend } from './backend/provide-demo-backend';
import { labCallTracker } from './lab/lab-call-tracker';

/**
 * The showcase uses the library exactly as an application would: the token-refresh interceptor
 * first, `provideAuth` for `/auth/*`, `provideUsersApi` for the users API. Only the lines marked
 * "demo" exist because the backend is an in-memory mock.
 */
export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideZonelessChangeDetection(),
    provideRouter(routes, withComponentInputBinding()),
    provideHttpClient(
      withInterceptors([
        tokenRefreshInterceptor,
        // demo: records each auth-lab call's path through the interceptor
        labCallTracker,
        // demo: latency, and the mock's plain error objects turned into HttpErrorResponses
        ...demoBackendInterceptors,
      ]),
    ),
    // demo: the in-memory backend; must come after provideHttpClient
    provideDemoBackend(),
    provideAuth({
      baseUrl: '/auth',
      loginPath: '/login',
      onSessionExpired: () => {
        const router = inject(Router);
        void router.navigate(['/login'], { queryParams: { reason: 'expired', returnUrl: router.url } });
      },
    }),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
};
