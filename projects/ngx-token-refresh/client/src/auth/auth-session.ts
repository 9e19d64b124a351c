import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import {
  TokenRefreshError,
  injectTokenRefresh,
  ɵinjectCallbackRunner as injectCallbackRunner,
  ɵinjectTokenWriter as injectTokenWriter,
  ɵisUsableToken as isUsableToken,
} from 'ngx-token-refresh';
import { AsyncSubject, type Observable, catchError, map, of } from 'rxjs';

import { ApiError } from '../errors/api-error';
import { parseApiError } from '../errors/parse-api-error';
import { AUTH_CONFIG } from './auth-config';
import { postAuthRequest } from './post-auth-request';

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
  /** Runs the app's `onSessionExpired`: a throw is reported, never rethrown. */
  private readonly notify = injectCallbackRunner();

  /** The current access token. */
  readonly token = this.state.token;

  /**
   * The last access token this session was given (login, refresh, or restored from storage): what a
   * refresh that failed for a passing reason gives back, since the interceptor clears its own.
   */
  private last: string | null = null;

  /** Above 0 while `AuthClient.restoreSession` runs: its failure is no session that expired. */
  restoring = 0;

  private readonly http = inject(HttpClient);
  /** Writes the token the interceptor's way, for the logout call sent after the session is cleared. */
  private readonly writeToken = injectTokenWriter();
  /** The body flow's refresh token of a session ended for idleness, until the server is told. */
  private idleRefreshToken: string | null = null;

  constructor() {
    // News from other tabs (withCrossTabSync): a token another tab refreshed is this session's now;
    // a sign-out there ends this session too, reported like a refused refresh.
    this.state.events.subscribe((event) => {
      if (event.type === 'tokenReceived') this.renewed(null);
      else if (event.type === 'signedOutElsewhere') this.signedOutElsewhere();
      else if (event.type === 'idleTimeout') this.timedOut();
    });
  }

  /**
   * Puts back the token of this tab after a reload (`tokenStorage: 'session'`), or takes as this
   * session's the token the interceptor already holds (handed over by a server render, `withServerSession`).
   */
  restoreStored(): void {
    const current = this.state.token();
    if (current !== null) {
      this.last = current;
      this.write(current);
      return;
    }
    const stored = this.storage()?.getItem(ACCESS_TOKEN_KEY);
    if (isUsableToken(stored)) {
      this.last = stored;
      // This tab's own token: other tabs have theirs, possibly newer.
      this.state.setToken(stored, { restored: true });
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
    // Not news for other tabs: they have this token, or a newer one.
    this.state.setToken(this.last, { restored: true });
    return true;
  }

  /** Whether this tab has had a session since its last sign-out (even if its token is being refreshed). */
  isActive(): boolean {
    return this.last !== null;
  }

  /**
   * Forgets every token of the session. With `withCrossTabSync`, the other tabs sign out too, unless
   * `announce` is `false`.
   */
  clear(announce = true): void {
    this.last = null;
    // `restored`: not news for the other tabs, which keep their session.
    this.state.setToken(null, { restored: !announce });
    this.write(null);
    if (this.config.refreshFlow === 'body') this.config.refreshTokenStore?.set(null);
  }

  /**
   * `provideAuth`'s `onRefreshFailure`. A refresh the server could not answer (no network, a timeout,
   * 408, 429, a 5xx) says nothing about the session: it is kept, and the next call tries again. Any
   * other failure (the server refused the refresh token) ends the session, reported through
   * `onSessionExpired` unless it was `restoreSession`'s attempt.
   */
  refreshFailed(error: unknown): void {
    // Ended for idleness already (and reported then): no refresh is sent until the next sign-in.
    if (error instanceof TokenRefreshError && error.code === 'IdleTimeout') return;
    if (isPassingFailure(error) && this.keep()) return;
    // A tab that had no session (a failed restore at start-up) has nothing to end in the others: a
    // sign-in in another tab at that moment must survive it.
    this.clear(this.isActive());
    if (this.restoring === 0) this.config.onSessionExpired?.(parseApiError(error));
  }

  /**
   * `withIdleTimeout`: nobody was active for the idle time, and the interceptor ended this tab's
   * session (every tab does the same). Forget the tokens here, and report it; one tab tells the server
   * (`signOutOnServer`), with the refresh token kept for it until then.
   */
  private timedOut(): void {
    this.idleRefreshToken = this.refreshToken();
    this.clear(false);
    const onSessionExpired = this.config.onSessionExpired;
    if (!onSessionExpired) return;
    this.notify(() =>
      onSessionExpired(new ApiError(401, 'IdleTimeout', 'You were signed out after a while without activity.')),
    );
  }

  /**
   * Tells the server that the session is over (`POST {baseUrl}/logout`, with the access token and, in
   * the body flow, the refresh token) so that it can revoke the refresh token; nothing when
   * `logoutEndpoint` is off. Sent at once; completes when the server has answered or could not be
   * reached, and never fails.
   */
  signOutOnServer(accessToken: string | null, refreshToken = this.idleRefreshToken): Observable<void> {
    this.idleRefreshToken = null;
    if (!this.config.logoutEndpoint) return of(undefined);
    const done = new AsyncSubject<void>();
    // The token goes the interceptor's way: its setAuthHeader (or withDPoP()'s proof), and only where
    // its URL policy allows.
    postAuthRequest(this.http, `${this.config.baseUrl}/logout`, refreshToken ? { refreshToken } : null, (request) =>
      this.writeToken(request, accessToken),
    )
      .pipe(
        map(() => undefined),
        catchError(() => of(undefined)),
      )
      .subscribe(done);
    return done.asObservable();
  }

  private signedOutElsewhere(): void {
    this.clear(false);
    const onSessionExpired = this.config.onSessionExpired;
    if (!onSessionExpired) return;
    this.notify(() => onSessionExpired(new ApiError(401, 'SignedOutElsewhere', 'You signed out in another tab.')));
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

/** A failure that leaves the refresh token's fate unknown, as opposed to the server refusing it. */
function isPassingFailure(error: unknown): boolean {
  if (error instanceof HttpErrorResponse) {
    const status = error.status;
    return status === 0 || status === 408 || status === 429 || status >= 500;
  }
  return error instanceof TokenRefreshError && error.code === 'Timeout';
}
