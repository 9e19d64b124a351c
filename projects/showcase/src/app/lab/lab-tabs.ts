import { InjectionToken } from '@angular/core';

/**
 * How the tabs of the showcase share a session, for the auth lab's Tabs card. Set by
 * backend-providers.ts, since it depends on the backend: the in-memory one runs in each tab on its
 * own, the reference server is one server for every tab.
 */
export interface LabTabs {
  /** Whether this tab runs `withCrossTabSync` (one refresh at a time across tabs, the token shared). */
  readonly crossTabSync: boolean;
  /**
   * How long the server still accepts a refresh token it has just rotated
   * (REFRESH_TOKEN_REUSE_INTERVAL_SECONDS), in seconds; `null` when each tab has its own in-memory
   * server, so tabs share no session at all.
   */
  readonly reuseIntervalSeconds: number | null;
}

/** How this tab shares its session with the other tabs; provided by `provideBackend()`. */
export const LAB_TABS = new InjectionToken<LabTabs>('LAB_TABS');
