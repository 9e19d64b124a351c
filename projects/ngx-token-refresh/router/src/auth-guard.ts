import { inject } from '@angular/core';
import { type CanActivateFn, Router } from '@angular/router';
import { AuthClient, ɵAUTH_CONFIG as AUTH_CONFIG } from 'ngx-token-refresh/client';
import { map } from 'rxjs';

/**
 * Lets a navigation through only with a session. Without a token it first tries to restore the
 * session with a refresh (after a reload, the refresh cookie usually still holds), and otherwise
 * redirects to `loginPath` with `?returnUrl=` the URL that was asked for. Needs `provideAuth` (from `ngx-token-refresh/client`).
 *
 * @usageNotes
 * ```ts
 * import { authGuard } from 'ngx-token-refresh/router';
 *
 * { path: 'users', component: UsersPage, canActivate: [authGuard] }
 * ```
 */
export const authGuard: CanActivateFn = (_route, state) => {
  const auth = inject(AuthClient);
  if (auth.isAuthenticated()) return true;
  const router = inject(Router);
  const toLogin = router.createUrlTree([inject(AUTH_CONFIG).loginPath], { queryParams: { returnUrl: state.url } });
  return auth.restoreSession().pipe(map((restored) => restored || toLogin));
};
