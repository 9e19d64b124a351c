import {
  type EnvironmentProviders,
  inject,
  makeEnvironmentProviders,
  provideEnvironmentInitializer,
} from '@angular/core';

import { type BffSessionConfig, resolveBffSessionConfig } from './bff-session-config';
import { BffSessionState } from './bff-session-state';

/**
 * Sets up the browser side of a backend for frontend (BFF, `ngx-token-refresh/bff` on the app's
 * server): the server signs in, keeps the tokens and proxies the API calls, and the browser holds
 * only an HttpOnly session cookie. This library then holds no token and refreshes nothing; it knows
 * who is signed in ({@link injectBffSession}), sends the BFF's `x-csrf` header and notices when the
 * session ends ({@link bffSessionInterceptor}, which goes into `withInterceptors`), and tells the
 * other tabs.
 *
 * At start-up it asks `GET <basePath>/session` who is signed in. A page rendered on the server
 * (`@angular/platform-server`, `@angular/ssr`) asks with the rendered request's session cookie, is
 * answered `Cache-Control: private, no-store`, and hands the user's claims (never a token) to the
 * browser, which then asks nothing. A prerendered page, which has no request, renders signed out.
 *
 * @usageNotes
 * ```ts
 * bootstrapApplication(App, {
 *   providers: [
 *     provideHttpClient(withFetch(), withInterceptors([bffSessionInterceptor])),
 *     provideBffSession({ onSessionExpired: () => inject(Router).navigate(['/signed-out']) }),
 *   ],
 * });
 * ```
 *
 * @throws in dev mode, when an option has the wrong type, or a path is not a path of this site.
 */
export function provideBffSession(config: BffSessionConfig = {}): EnvironmentProviders {
  const resolved = resolveBffSessionConfig(config);
  return makeEnvironmentProviders([
    { provide: BffSessionState, useFactory: () => new BffSessionState(resolved) },
    // Once the state exists: its first request goes through the interceptor, which needs it.
    provideEnvironmentInitializer(() => inject(BffSessionState).start()),
  ]);
}
