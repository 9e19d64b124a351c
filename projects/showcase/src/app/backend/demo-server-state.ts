import { Injectable, signal } from '@angular/core';

import { DEMO_ACCOUNTS, type DemoAccount } from '#contract/demo';

export type { DemoAccount };

/**
 * The in-memory backend's state that the showcase's controls reach into: token lifetime, artificial
 * latency, the refresh counter, and the switches that expire the access token or revoke the refresh
 * token. A browser-side mock cannot set a real HttpOnly cookie, so the refresh token lives here, out
 * of the app's reach, as a stand-in for one.
 */
@Injectable({ providedIn: 'root' })
export class DemoServerState {
  /** The demo accounts and their passwords, shown on the login page: the same as on the reference server. */
  readonly accounts: readonly DemoAccount[] = DEMO_ACCOUNTS;

  /** Lifetime of new access tokens, in seconds (5 to 3600). */
  readonly tokenLifetimeSeconds = signal(30);
  /**
   * Lifetime of new refresh tokens, in seconds: 7 days, as in the contract. A refresh rotates the
   * token but keeps this expiry, so a session ends a week after its login whatever happens.
   */
  readonly refreshTokenLifetimeSeconds = signal(7 * 24 * 60 * 60);
  /** Artificial latency of every backend answer, in milliseconds (0 to 5000). */
  readonly latencyMs = signal(400);
  /** How many `POST /auth/refresh` calls the backend has answered (success or not). */
  readonly refreshCalls = signal(0);

  /** Serial number the next access token gets; tokens below `minValidSerial` are expired. */
  private nextSerial = 1;
  private minValidSerial = 1;
  /** The "cookie": the refresh token of this browser's session, or null when signed out or revoked. */
  private refreshToken: { readonly value: string; readonly username: string } | null = null;

  /** Expires every access token issued so far: the next API call with one gets 401. */
  expireAccessTokensNow(): void {
    this.minValidSerial = this.nextSerial;
  }

  /** Revokes the refresh token: the next refresh fails with 401. */
  revokeRefreshToken(): void {
    this.refreshToken = null;
  }

  /** Starts counting refresh calls from zero again. */
  resetRefreshCalls(): void {
    this.refreshCalls.set(0);
  }

  /** Takes a serial number for a new access token. */
  issueSerial(): number {
    return this.nextSerial++;
  }

  /** Whether an access token with this serial was expired by `expireAccessTokensNow`. */
  isRevokedSerial(serial: number): boolean {
    return serial < this.minValidSerial;
  }

  /** Sets (login, rotation) or clears (logout) the refresh "cookie". */
  setRefreshToken(value: string | null, username = ''): void {
    this.refreshToken = value === null ? null : { value, username };
  }

  /** The current refresh "cookie", if any. */
  currentRefreshToken(): { readonly value: string; readonly username: string } | null {
    return this.refreshToken;
  }
}
