import { HttpClient } from '@angular/common/http';
import { Injectable, computed, inject } from '@angular/core';
import { DPOP_PROOF, injectTokenRefresh, parseJwtClaims, ɵisUsableToken as isUsableToken } from 'ngx-token-refresh';
import { type Observable, catchError, defer, finalize, map, of, throwError } from 'rxjs';

import { ApiError } from '../errors/api-error';
import { parseApiError } from '../errors/parse-api-error';
import { AUTH_CONFIG } from './auth-config';
import { AuthSession } from './auth-session';
import { postAuthRequest } from './post-auth-request';
import { readAccessToken } from './read-access-token';

/**
 * Login, refresh and logout against `{baseUrl}/login`, `/refresh` and `/logout`, and the session as
 * signals. Needs {@link provideAuth}. Its requests carry cookies (`withCredentials`) and are never
 * handled by the refresh logic; every failure is an {@link ApiError}.
 *
 * @usageNotes
 * ```ts
 * export class LoginPage {
 *   private readonly auth = inject(AuthClient);
 *   submit(username: string, password: string) {
 *     this.auth.login({ username, password }).subscribe({
 *       next: () => this.router.navigateByUrl('/users'),
 *       error: (error: ApiError) => this.error.set(error.message),
 *     });
 *   }
 * }
 * ```
 */
@Injectable({ providedIn: 'root' })
export class AuthClient {
  private readonly http = inject(HttpClient);
  private readonly config = inject(AUTH_CONFIG);
  private readonly session = inject(AuthSession);
  private readonly tokenRefresh = injectTokenRefresh();

  /** The current access token (in memory by default), or `null` when signed out. */
  readonly accessToken = this.session.token;

  /** Whether there is a session (an access token, even one about to be refreshed). */
  readonly isAuthenticated = computed(() => this.accessToken() !== null);

  /**
   * When the access token expires, from its `exp` claim (read, not verified), or `null` when there
   * is no token or it has no readable `exp`.
   */
  readonly expiresAt = computed(() => {
    const exp = parseJwtClaims(this.accessToken())?.exp;
    const date = typeof exp === 'number' ? new Date(exp * 1000) : null;
    // An absurd exp (1e300) makes an Invalid Date, which DatePipe and comparisons cannot use.
    return date && Number.isFinite(date.getTime()) ? date : null;
  });

  /** `POST {baseUrl}/login`; on success the session holds the new token. */
  login(credentials: { username: string; password: string }): Observable<void> {
    const { username, password } = credentials ?? {};
    if (typeof username !== 'string' || typeof password !== 'string') {
      return throwError(() => new ApiError(0, 'InvalidArgument', 'username and password must be strings'));
    }
    // With withDPoP(), a proof goes along: the server binds the new session to this browser's key.
    return postAuthRequest(this.http, `${this.config.baseUrl}/login`, { username, password }, (request) =>
      request.clone({ context: request.context.set(DPOP_PROOF, true) }),
    ).pipe(
      map((response) => {
        const token = readAccessToken(response);
        // The same test the refresh applies: 'Bearer abc' or a token with a newline is no token.
        if (!isUsableToken(token)) {
          throw new ApiError(
            response.status,
            'InvalidResponse',
            'The server sent an unexpected answer (no access token).',
          );
        }
        this.session.start(token, response.body);
      }),
      catchError((error: unknown) => throwError(() => parseApiError(error))),
    );
  }

  /**
   * Renews the access token now (or joins the renewal in flight: there is only ever one), e.g. to
   * restore the session after a reload in the cookie flow. Emits the new token.
   */
  refresh(): Observable<string> {
    return this.tokenRefresh.refresh().pipe(catchError((error: unknown) => throwError(() => parseApiError(error))));
  }

  /**
   * Brings back the session without a login, when there is none (after a reload the refresh cookie
   * usually still holds): one refresh, shared with any refresh in flight. Emits `true` when there is a
   * session afterwards and `false` when not, then completes; never fails. Its failure is no session
   * that expired, so `onSessionExpired` does not run for it. `authGuard` uses it.
   *
   * @example inject(AuthClient).restoreSession().subscribe((restored) => restored || router.navigate(['/login']))
   */
  restoreSession(): Observable<boolean> {
    return defer(() => {
      if (this.isAuthenticated()) return of(true);
      this.session.restoring++;
      return this.refresh().pipe(
        map(() => true),
        catchError(() => of(false)),
        finalize(() => this.session.restoring--),
      );
    });
  }

  /**
   * Ends the session: clears the tokens at once, then tells the server (`POST {baseUrl}/logout`,
   * with the access token and, in the body flow, the refresh token) so it can revoke the refresh
   * token. Both happen when `logout()` is called, subscribed or not; the Observable completes when
   * the server has answered, and also when it could not be reached: signing out never fails.
   */
  logout(): Observable<void> {
    const accessToken = this.accessToken();
    const refreshToken = this.session.refreshToken();
    this.session.clear();
    return this.session.signOutOnServer(accessToken, refreshToken);
  }

  /** Forgets the session locally, without telling the server. */
  clearSession(): void {
    this.session.clear();
  }
}
