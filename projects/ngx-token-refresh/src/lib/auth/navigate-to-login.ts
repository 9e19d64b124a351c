import { ErrorHandler, inject } from '@angular/core';
import { Router } from '@angular/router';

import { AUTH_CONFIG } from './auth-config';

/**
 * An `onSessionExpired` for {@link provideAuth}: sends people to `loginPath`, with
 * `?returnUrl=<the current URL>` so the login page can bring them back. Does nothing in an app
 * without routes. A function of its own, not `provideAuth`'s default, so an app that does not route
 * never ships the router for it. Needs an injection context (`onSessionExpired` runs in one).
 *
 * @usageNotes
 * ```ts
 * provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin });
 *
 * // or as part of your own handler:
 * provideAuth({
 *   onSessionExpired: (error) => {
 *     inject(Toasts).show(error.message);
 *     navigateToLogin();
 *   },
 * });
 * ```
 */
export function navigateToLogin(): void {
  const router = inject(Router);
  // The Router exists even in apps without routes; only an app with routes has a login page to show.
  if (router.config.length === 0) return;
  const { loginPath } = inject(AUTH_CONFIG);
  const errorHandler = inject(ErrorHandler);
  const returnUrl = router.url;
  router
    .navigate([loginPath], returnUrl && returnUrl !== '/' ? { queryParams: { returnUrl } } : {})
    .catch((error: unknown) => errorHandler.handleError(error));
}
