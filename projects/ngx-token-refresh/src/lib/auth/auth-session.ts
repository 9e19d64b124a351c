import { Injectable, inject } from '@angular/core';

import { injectTokenRefresh } from '../refresh/inject-token-refresh';
import { isUsableToken } from '../refresh/is-usable-token';
import { AUTH_CONFIG } from './auth-config';

/** sessionStorage key of the access token when `tokenStorage: 'session'`. */
const ACCESS_TOKEN_KEY = 'ngx-token-refresh.accessToken';

/**
 * Keeps the session's tokens where the configuration says: the access token in the interceptor's
 * state (the one source of truth the interceptor attaches from), mirrored to `sessionStorage` when
 * asked; the refresh token, in the body flow, in the app's store. Internal to `provideAuth`.
 */
@Injectable({ providedIn: 'root' })
export class AuthSession {
  private readonly config = inject(AUTH_CONFIG);
  private readonly state = injectTokenRefresh();

  /** The current access token. */
  readonly token = this.state.token;

  /**
   * The last access token this session was given (login, refresh, or restored from storage): what a
   * refresh that failed for a passing reason gives back, since the interceptor clears its own.
   */
  private last: string | null = null;

  /** Puts back the token of this tab after a reload (`tokenStorage: 'session'`). */
  restoreStored(): void {
    const stored = this.storage()?.getItem(ACCESS_TOKEN_KEY);
    if (isUsableToken(stored) && this.state.token() === null) {
      this.last = stored;
      this.state.setToken(stored);
    }
  }

  /** A login succeeded: keep its access token (and, in the body flow, its refresh token). */
  start(accessToken: string, body: unknown): void {
    this.last = accessToken;
    this.state.setToken(accessToken);
    this.renewed(body);
  }

  /** A refresh succeeded (the interceptor already holds the new token): persist what changed. */
  renewed(body: unknown): void {
    const token = this.state.token();
    if (token !== null) {
      this.last = token;
      this.write(token);
    }
    const rotated =
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['refreshToken'] : null;
    if (this.config.refreshFlow === 'body' && typeof rotated === 'string' && rotated !== '') {
      this.config.refreshTokenStore?.set(rotated);
    }
  }

  /**
   * Keeps the session through a refresh that failed for a passing reason: puts its last access token
   * back (the interceptor cleared it), so the next call carries it and, on a 401, tries a refresh
   * again. Returns whether there was a session to keep.
   */
  keep(): boolean {
    if (this.last === null) return false;
    this.state.setToken(this.last);
    return true;
  }

  /** Forgets every token of the session. */
  clear(): void {
    this.last = null;
    this.state.setToken(null);
    this.write(null);
    if (this.config.refreshFlow === 'body') this.config.refreshTokenStore?.set(null);
  }

  /** The refresh token to send in the body flow, if any. */
  refreshToken(): string | null {
    return this.config.refreshFlow === 'body' ? (this.config.refreshTokenStore?.get() ?? null) : null;
  }

  private write(token: string | null): void {
    const storage = this.storage();
    if (!storage) return;
    try {
      if (token === null) storage.removeItem(ACCESS_TOKEN_KEY);
      else storage.setItem(ACCESS_TOKEN_KEY, token);
    } catch {
      // Quota exceeded or storage disabled: the token still lives in memory for this page.
    }
  }

  /** sessionStorage when configured and usable (not on the server, not blocked by the browser). */
  private storage(): Storage | null {
    if (this.config.tokenStorage !== 'session') return null;
    try {
      return typeof sessionStorage === 'undefined' ? null : sessionStorage;
    } catch {
      return null;
    }
  }
}
