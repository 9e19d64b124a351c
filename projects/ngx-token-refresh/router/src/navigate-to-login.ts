import { ErrorHandler, inject } from '@angular/core';
import { Router } from '@angular/router';
import { type ApiError, ɵAUTH_CONFIG as AUTH_CONFIG } from 'ngx-token-refresh/client';

/**
 * An `onSessionExpired` for `provideAuth` (from `ngx-token-refresh/client`): sends people to `loginPath`, with
 * `?returnUrl=<the current URL>` (left out on `/`) so the login page can bring them back. Called with
 * the `ApiError` of the failed refresh, as `onSessionExpired` calls it, it also adds `?reason=expired`,
 * so the login page can say why it is shown ("your session has ended, please sign in again") rather
 * than look like a first visit; `?reason=signed-out` when the session ended because another tab signed
 * out (code `SignedOutElsewhere`, with `withCrossTabSync`); `?reason=idle` when it ended for idleness
 * (code `IdleTimeout`, with `withIdleTimeout`). Called with no argument, it adds no reason. Does nothing in an app
 * without routes. A function of its own, in `ngx-token-refresh/router`, not `provideAuth`'s default, so
 * an app that does not route neither installs nor ships the router for it. Needs an injection context (`onSessionExpired` runs in one); a
 * navigation that fails is reported to the `ErrorHandler`.
 *
 * @param error the error that ended the session; with one, the URL carries `reason=expired` (or
 *   `reason=signed-out`).
 *   Default: none (no `reason`).
 *
 * @usageNotes
 * ```ts
 * import { navigateToLogin } from 'ngx-token-refresh/router';
 *
 * provideAuth({ baseUrl: '/auth', loginPath: '/login', onSessionExpired: navigateToLogin });
 *
 * // or as part of your own handler (pass the error on to keep the reason):
 * provideAuth({
 *   onSessionExpired: (error) => {
 *     inject(Toasts).show(error.message);
 *     navigateToLogin(error);
 *   },
 * });
 *
 * // the login page, with provideRouter(routes, withComponentInputBinding()):
 * readonly reason = input<string>(); // 'expired' after a failed refresh
 * readonly returnUrl = input<string>(); // go there with safeReturnUrl(this.returnUrl(), '/')
 * ```
 */
export function navigateToLogin(error?: ApiError): void {
  const router = inject(Router);
  // The Router exists even in apps without routes; only an app with routes has a login page to show.
  if (router.config.length === 0) return;
  const { loginPath } = inject(AUTH_CONFIG);
  const errorHandler = inject(ErrorHandler);
  const returnUrl = router.url;
  const queryParams: Record<string, string> = {};
  if (error !== undefined) {
    queryParams['reason'] =
      error.code === 'SignedOutElsewhere' ? 'signed-out' : error.code === 'IdleTimeout' ? 'idle' : 'expired';
  }
  if (returnUrl && returnUrl !== '/') queryParams['returnUrl'] = returnUrl;
  router.navigate([loginPath], { queryParams }).catch((failure: unknown) => errorHandler.handleError(failure));
}
