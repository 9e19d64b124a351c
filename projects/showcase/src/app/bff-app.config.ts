import { provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { type ApplicationConfig, inject, provideBrowserGlobalErrorListeners } from '@angular/core';
import { bffSessionInterceptor, provideBffSession } from 'ngx-token-refresh/client';

import { BffSessionNotice } from './bff-session-notice';
import { provideChangeDetection } from './provide-change-detection';

// The providers of the `bff` build (angular.json; main.bff.ts), served by projects/showcase/bff/serve-bff.ts
// (`npm run start:bff`): a backend for frontend on the app's own server signs in, keeps the tokens and
// calls the API for the page. So no token client here, no refresh and no token in the browser: the
// session cookie is HttpOnly, and this app only asks the server who is signed in.

/**
 * The `bff` build's providers: HttpClient with `bffSessionInterceptor` (the BFF's `x-csrf` header on
 * /bff and /api calls, and the end of the session noticed), and `provideBffSession` (who is signed in,
 * the sign-in and sign-out, and the news between tabs).
 */
export const bffAppConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideChangeDetection(),
    provideHttpClient(withFetch(), withInterceptors([bffSessionInterceptor])),
    // Once per tab: a call that met the end of the session, or another tab that met it or signed out.
    provideBffSession({ onSessionExpired: (error) => inject(BffSessionNotice).report(error) }),
  ],
};
