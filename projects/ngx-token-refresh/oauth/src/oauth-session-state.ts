import { HttpClient, HttpErrorResponse, type HttpResponse } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { type Observable, catchError, firstValueFrom, map, throwError } from 'rxjs';

import {
  TokenRefreshError,
  injectTokenRefresh,
  ɵinjectCallbackRunner as injectCallbackRunner,
  ɵisUsableToken as isUsableToken,
} from 'ngx-token-refresh';

import { OAUTH_REFRESH_CONFIG } from './oauth-refresh-config';
import { OAuthError } from './oauth-error';
import { type OAuthTokenResponse, type OAuthTokens, readTokenResponse } from './oauth-token-response';
import { postTokenRequest } from './post-token-request';

/**
 * The OAuth session of one application: the refresh grant the interceptor runs, the refresh token in
 * its store, and what a failed refresh means. Internal to `provideOAuthRefresh`; apps use
 * `OAuthSession`. The access token itself lives in the interceptor (the one source it attaches from).
 */
@Injectable({ providedIn: 'root' })
export class OAuthSessionState {
  readonly #config = inject(OAUTH_REFRESH_CONFIG);
  readonly #http = inject(HttpClient);
  readonly #notify = injectCallbackRunner();
  readonly state = injectTokenRefresh();
  /**
   * The last access token of this session and when it expires (device time, ms): what a refresh that
   * failed for a passing reason puts back, since the interceptor clears its token. `null` once over.
   */
  #last: { readonly token: string; readonly expiresAt: number | null } | null = null;
  /** The refresh token the refresh in flight sent: only that one may be replaced or forgotten. */
  #sent: string | null = null;
  /** Above 0 while `restore()` runs: its failure is no session that expired. */
  #restoring = 0;

  constructor() {
    // News from other tabs (withCrossTabSync): their token is this session's now; their sign-out too.
    this.state.events.subscribe((event) => {
      if (event.type === 'tokenReceived') this.#remember(this.state.token(), undefined);
      else if (event.type === 'signedOutElsewhere') this.#signedOutElsewhere();
    });
  }

  setTokens(response: OAuthTokenResponse): void {
    const tokens = readTokenResponse(response, 200);
    // A new sign-in: its refresh token replaces any other; without one there is nothing to refresh with.
    this.#config.store.set(tokens.refreshToken ?? null);
    this.#remember(tokens.accessToken, tokens.expiresIn);
    this.state.setToken(tokens.accessToken, { expiresIn: tokens.expiresIn });
  }

  async restore(): Promise<boolean> {
    if (this.state.token() !== null) return true;
    if (!isUsableToken(this.#config.store.get())) return false;
    this.#restoring++;
    try {
      await firstValueFrom(this.state.refresh());
      return true;
    } catch {
      return false;
    } finally {
      this.#restoring--;
    }
  }

  async signOut(): Promise<boolean> {
    const { store, revocationEndpoint, clientId } = this.#config;
    const refreshToken = store.get();
    this.#clear(true, true);
    if (!revocationEndpoint || !isUsableToken(refreshToken)) return false;
    try {
      await firstValueFrom(
        postTokenRequest(this.#http, revocationEndpoint, {
          token: refreshToken,
          token_type_hint: 'refresh_token',
          client_id: clientId,
        }),
      );
      return true;
    } catch {
      // Forgotten here either way; the server keeps it until it expires.
      return false;
    }
  }

  /**
   * The refresh grant (RFC 6749 §6) with the stored refresh token, as `refreshApiCall`. Its answer
   * comes back with the tokens read (`OAuthTokens` as the body), after the rotated refresh token has
   * replaced the one sent.
   */
  refreshGrant(): Observable<HttpResponse<OAuthTokens>> {
    const { store, tokenEndpoint, clientId, scope } = this.#config;
    const refreshToken = store.get();
    this.#sent = refreshToken;
    if (!isUsableToken(refreshToken)) {
      return throwError(() => new OAuthError('no_refresh_token', 0, 'there is no refresh token to refresh with'));
    }
    const params: Record<string, string> = {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
    };
    if (scope) params['scope'] = scope;
    return postTokenRequest(this.#http, tokenEndpoint, params).pipe(
      map((response) => {
        let body: unknown;
        try {
          body = JSON.parse(response.body ?? '');
        } catch {
          throw new OAuthError(
            'invalid_response',
            response.status,
            'the token endpoint answered with something that is not JSON',
          );
        }
        const tokens = readTokenResponse(body, response.status);
        // Rotated: the new one replaces the one sent at once, unless the session changed meanwhile (a
        // sign-out, a new sign-in). Without a new one, the one sent stays valid (RFC 6749 §6).
        if (tokens.refreshToken && store.get() === refreshToken) store.set(tokens.refreshToken);
        return response.clone({ body: tokens });
      }),
      catchError((error: unknown) =>
        throwError(() =>
          // An error page from a proxy or a firewall (no OAuth body) that is no passing failure: the
          // server refused; say so in the one type that means "the session is over".
          error instanceof HttpErrorResponse && !isPassingFailure(error)
            ? new OAuthError(
                'invalid_response',
                error.status,
                `the token endpoint answered ${error.status} without an OAuth error`,
                { cause: error },
              )
            : error,
        ),
      ),
    );
  }

  /** `onRefreshSuccess`: the interceptor holds the new access token. */
  renewed(tokens: OAuthTokens): void {
    this.#remember(tokens.accessToken, tokens.expiresIn);
  }

  /**
   * `onRefreshFailure`. A refresh the server could not answer (no network, a timeout, 408, 429, a 5xx)
   * says nothing about the refresh token: the session is kept (its last access token put back), and
   * the next 401 tries again. Anything else ends it: the refresh token is forgotten, the other tabs are
   * told when they share it, and `onSessionExpired` runs (not for `restore()`'s attempt).
   */
  refreshFailed(error: unknown): void {
    const last = this.#last;
    if (isPassingFailure(error)) {
      // The refresh token stays (even with no access token: a restore() that met no network). Not
      // news for other tabs: they have this token, or a newer one.
      if (last) {
        const expiresIn = last.expiresAt === null ? 0 : (last.expiresAt - Date.now()) / 1000;
        this.state.setToken(last.token, { restored: true, expiresIn: expiresIn > 0 ? expiresIn : undefined });
      }
      return;
    }
    const noToken = error instanceof OAuthError && error.error === 'no_refresh_token';
    // Tabs share the spent refresh token only when they share the store; a tab that had nothing to
    // end must not end the others'.
    this.#clear(this.#config.sharedStore && last !== null && !noToken, false);
    if (this.#restoring === 0) {
      const onSessionExpired = this.#config.onSessionExpired;
      const reason =
        error instanceof OAuthError
          ? error
          : new OAuthError('invalid_response', 0, 'the refresh did not bring a token', { cause: error });
      this.#notify(onSessionExpired && (() => onSessionExpired(reason)));
    }
  }

  #remember(token: string | null, expiresIn: number | undefined): void {
    this.#last = token === null ? null : { token, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null };
  }

  /**
   * Forgets the session: the access token (announced to the other tabs when `announce`), and the
   * refresh token: all of it on `signOut`, else only the one this tab sent, never a newer one that
   * another tab put in a shared store meanwhile.
   */
  #clear(announce: boolean, signOut: boolean): void {
    this.#last = null;
    const store = this.#config.store;
    if (signOut || store.get() === this.#sent) store.set(null);
    this.state.setToken(null, { restored: !announce });
  }

  #signedOutElsewhere(): void {
    this.#clear(false, true);
    const onSessionExpired = this.#config.onSessionExpired;
    this.#notify(
      onSessionExpired &&
        (() => onSessionExpired(new OAuthError('signed_out_elsewhere', 0, 'signed out in another tab'))),
    );
  }
}

/** A failure that leaves the refresh token's fate unknown, as opposed to the server refusing it. */
function isPassingFailure(error: unknown): boolean {
  if (error instanceof HttpErrorResponse || error instanceof OAuthError) {
    const status = error.status;
    // Status 0 is no answer for an HttpErrorResponse; an OAuthError with it never reached a server.
    return (status === 0 && error instanceof HttpErrorResponse) || status === 408 || status === 429 || status >= 500;
  }
  return error instanceof TokenRefreshError && error.code === 'Timeout';
}
