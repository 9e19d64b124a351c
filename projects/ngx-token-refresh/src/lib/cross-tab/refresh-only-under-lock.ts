import { InjectionToken } from '@angular/core';

/**
 * Provided as `true` by a setup whose refresh token is one copy shared by the tabs (the OAuth preset
 * with a shared store): a tab that cannot get the cross-tab lock within `refreshTimeout` then fails
 * its refresh with `TokenRefreshError` `Timeout` (a passing failure: the session is kept) instead of
 * refreshing without the lock, which would send the same refresh token as the tab holding it.
 */
export const REFRESH_ONLY_UNDER_LOCK = new InjectionToken<boolean>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'REFRESH_ONLY_UNDER_LOCK' : '',
);
