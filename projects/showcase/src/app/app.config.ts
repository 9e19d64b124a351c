import { provideHttpClient, withInterceptors } from '@angular/common/http';
import {
  type ApplicationConfig,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import { provideRouter, withComponentInputBinding } from '@angular/router';
import { navigateToLogin, provideAuth, provideUsersApi, tokenRefreshInterceptor } from 'ngx-token-refresh';

import { routes } from './app.routes';
import { backendInterceptors, provideBackend } from './backend-providers';
import { labCallTracker } from './lab/lab-call-tracker';

/**
 * The showcase uses the library exactly as an application would: the token-refresh interceptor
 * first, `provideAuth` for `/auth/*`, `provideUsersApi` for the users API. Only the lines marked
 * "demo" exist because the backend is an in-memory mock; they come from backend-providers.ts, which
 * the `real` build configuration swaps for the reference server's (nothing to add there).
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
        ...backendInterceptors,
      ]),
    ),
    // demo: the in-memory backend; must come after provideHttpClient
    provideBackend(),
    // The login page reads navigateToLogin's ?reason=expired (an input, by withComponentInputBinding)
    // to say that the session has ended.
    provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin }),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
  ],
};
