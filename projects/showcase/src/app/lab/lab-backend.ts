import { InjectionToken, type Signal, type WritableSignal } from '@angular/core';

/**
 * The switches of a backend the auth lab can reach into: the in-memory backend has them (its
 * `DemoServerState`), a real server has none. The lab shows its token, latency and revocation
 * controls only when there is one.
 */
export interface LabBackend {
  /** Lifetime of new access tokens, in seconds. */
  readonly tokenLifetimeSeconds: WritableSignal<number>;
  /** Artificial latency of every answer, in milliseconds. */
  readonly latencyMs: WritableSignal<number>;
  /** How many `POST /auth/refresh` calls the backend has answered. */
  readonly refreshCalls: Signal<number>;
  /** Makes the backend reject every access token issued so far. */
  expireAccessTokensNow(): void;
  /** Makes the next refresh fail. */
  revokeRefreshToken(): void;
}

/** The backend's lab switches, or `null` (the default) against a real server. */
export const LAB_BACKEND = new InjectionToken<LabBackend | null>('LAB_BACKEND', {
  providedIn: 'root',
  factory: () => null,
});
