import { InjectionToken } from '@angular/core';

import { proactiveRefresh } from '../tab-choice';

/**
 * Whether this tab refreshes ahead of expiry (`withProactiveRefresh()`), for the auth lab: the same
 * choice app.config.ts made when it passed the feature to `provideAuth`, or not.
 */
export const LAB_PROACTIVE = new InjectionToken<boolean>('LAB_PROACTIVE', {
  providedIn: 'root',
  factory: () => proactiveRefresh,
});
