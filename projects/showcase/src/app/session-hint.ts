import { type EnvironmentProviders, effect, inject, provideEnvironmentInitializer, untracked } from '@angular/core';
import { type CanActivateFn, Router, UrlTree } from '@angular/router';
import { AuthClient } from 'ngx-token-refresh/client';
import { authGuard } from 'ngx-token-refresh/router';
import { isObservable, tap } from 'rxjs';

/**
 * Whether this browser may hold a session: set when a tab signs in (or restores a session), cleared
 * when a session ends or cannot be restored. The refresh cookie is HttpOnly, so the page cannot see
 * it; this hint holds no secret, only "worth asking the server". It lives in localStorage so that a
 * new tab restores the session as well.
 */
const HINT_KEY = 'showcase.session';

/**
 * `authGuard`, without the restore call that can only fail: with no session and no hint of one
 * (a first visit, or after signing out), straight to the login page instead of a `POST /auth/refresh`
 * that the server must answer with 401 (a red line in the browser's console on every first visit).
 */
export const sessionGuard: CanActivateFn = (route, state) => {
  if (!inject(AuthClient).isAuthenticated() && !readHint()) {
    return inject(Router).createUrlTree(['/login'], { queryParams: { returnUrl: state.url } });
  }
  const result = authGuard(route, state);
  // The restore failed: the server no longer holds a session for this browser.
  return isObservable(result) ? result.pipe(tap((outcome) => outcome instanceof UrlTree && writeHint(false))) : result;
};

/** Keeps the hint in step with the session (provide it with the app, after `provideAuth`). */
export function provideSessionHint(): EnvironmentProviders {
  return provideEnvironmentInitializer(() => {
    const signedIn = inject(AuthClient).isAuthenticated;
    let before = untracked(signedIn);
    effect(() => {
      const now = signedIn();
      // Only a session that ended clears it: a tab starting without a token has not restored yet.
      if (now || before) writeHint(now);
      before = now;
    });
  });
}

function readHint(): boolean {
  try {
    return localStorage.getItem(HINT_KEY) !== null;
  } catch {
    // No storage (blocked by the browser's settings): always ask the server, as authGuard alone does.
    return true;
  }
}

function writeHint(session: boolean): void {
  try {
    if (session) localStorage.setItem(HINT_KEY, '1');
    else localStorage.removeItem(HINT_KEY);
  } catch {
    // No storage: nothing to keep.
  }
}
