import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { type ApplicationConfig, provideBrowserGlobalErrorListeners } from '@angular/core';
import { provideRouter, withComponentInputBinding } from '@angular/router';
import { tokenRefreshInterceptor, withIdleTimeout, withProactiveRefresh } from 'ngx-token-refresh';
import { provideAuth, provideUsersApi } from 'ngx-token-refresh/client';
import { navigateToLogin } from 'ngx-token-refresh/router';

import { routes } from './app.routes';
import { authFeatures, backendInterceptors, provideBackend } from './backend-providers';
import { httpBackendFeatures } from './http-backend-features';
import { labCallTracker } from './lab/lab-call-tracker';
import { provideLabLog } from './lab/lab-log';
import { provideChangeDetection } from './provide-change-detection';
import { provideSessionHint } from './session-hint';
import { idleTimeoutMs, proactiveRefresh } from './tab-choice';

/**
 * The showcase uses the library exactly as an application would: the token-refresh interceptor
 * first, `provideAuth` for `/auth/*`, `provideUsersApi` for the users API. Only the lines marked
 * "demo" exist because the backend is an in-memory mock; they come from backend-providers.ts, which
 * the `real` build configuration swaps for the reference server's.
 */
export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    // Zoneless; zone.js in the `real-zone` build, which the browser tests also run (see the file).
    provideChangeDetection(),
    provideRouter(routes, withComponentInputBinding()),
    // XMLHttpRequest; fetch in the `real-fetch` build, which the browser tests also run (see the file).
    provideHttpClient(
      ...httpBackendFeatures,
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
    // The login page reads navigateToLogin's ?reason=expired, or ?reason=signed-out when another tab
    // signed out (an input, by withComponentInputBinding), to say why the session has ended.
    // withProactiveRefresh: the token is refreshed shortly before it expires, so steady traffic never
    // meets a 401. demo: a tab loaded with ?proactive=off goes without it, to compare (tab-choice.ts).
    // withCrossTabSync (in authFeatures): the tabs share the refresh cookie, so they take turns to refresh and
    // share the new token. demo: off for the in-memory backend, which runs one server per tab
    // withIdleTimeout: after 5 minutes without activity in any tab, every tab signs out (a warning
    // dialog comes first: idle-warning.ts), the server is told once, and the login page says why.
    // demo: ?idle=30 sets the time of a tab in seconds (tab-choice.ts)
    provideAuth(
      { baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin },
      ...(proactiveRefresh ? [withProactiveRefresh()] : []),
      withIdleTimeout({ idle: idleTimeoutMs }),
      ...authFeatures,
    ),
    provideUsersApi({ baseUrl: '/api', version: 1 }),
    // Remembers whether this browser may hold a session, so that a first visit makes no refresh
    // call that can only answer 401 (sessionGuard, app.routes.ts)
    provideSessionHint(),
    // demo: the auth lab's log hears the library's events from the start (the sign-in announces the
    // first refresh due, before the lab page opens)
    provideLabLog(),
  ],
};
