import { HttpClient, HttpErrorResponse, type HttpResponse } from '@angular/common/http';
import { DOCUMENT, Injectable, inject } from '@angular/core';
import { type Observable, catchError, firstValueFrom, map, throwError } from 'rxjs';

import {
  TokenRefreshError,
  injectTokenRefresh,
  ɵinjectCallbackRunner as injectCallbackRunner,
  ɵisSecureEndpoint as isSecureEndpoint,
  ɵisUsableToken as isUsableToken,
} from 'ngx-token-refresh';

import { isPassingFailure } from './is-passing-failure';
import { OAUTH_REFRESH_CONFIG } from './oauth-refresh-config';
import { OAuthError } from './oauth-error';
import { type OAuthTokenResponse, type OAuthTokens, readTokenResponse } from './oauth-token-response';
import { postTokenRequest } from './post-token-request';
import { warnNoRefreshToken } from './warn-no-refresh-token';

/**
 * The OAuth session of one application: the refresh grant the interceptor runs, the refresh token in
 * its store, and what a failed refresh means. Internal to `provideOAuthRefresh`, which provides it in
 * the injector of the interceptor; apps use `OAuthSession`. The access token itself lives in the
 * interceptor (the one source it attaches from).
 *
 * With a store shared by the tabs, the store is the truth about the session: the refresh token in it
 * is the live one. A tab takes another tab's access token only while a refresh token is there (so a
 * token posted just before a sign-out elsewhere is not taken after it), and a refresh whose refresh
 * token was replaced or removed meanwhile (a sign-in or sign-out in another tab) hands nothing on.
 */
@Injectable({ providedIn: 'root' })
export class OAuthSessionState {
  readonly #config = inject(OAUTH_REFRESH_CONFIG);
  readonly #http = inject(HttpClient);
  readonly #document = inject(DOCUMENT, { optional: true });
  readonly #notify = injectCallbackRunner();
  readonly state = injectTokenRefresh();
  /**
   * The last access token of this session and when it expires (device time, ms): what a refresh that
   * failed for a passing reason puts back, since the interceptor clears its token. `null` once over.
   */
  #last: { readonly token: string; readonly expiresAt: number | null } | null = null;
  /** The refresh token the last refresh sent: only that one may be forgotten when it fails. */
  #sent: string | null = null;
  /** The error a refresh ended with because the session changed while it ran (see `refreshGrant`). */
  #superseded: unknown = null;
  /** Above 0 while `restore()` runs: its failure is no session that expired. */
  #restoring = 0;

  constructor() {
    // News from other tabs (withCrossTabSync): their token is this session's now, if this tab still
    // has a session to refresh it with; their sign-out ends this one.
    this.state.events.subscribe((event) => {
      if (event.type === 'tokenReceived') this.#received();
      else if (event.type === 'signedOutElsewhere') this.#signedOutElsewhere();
    });
  }

  setTokens(response: OAuthTokenResponse): void {
    const tokens = readTokenResponse(response, 200, this.#config.tokenType);
    if (typeof ngDevMode !== 'undefined' && ngDevMode) warnNoRefreshToken(tokens);
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
    if (!revocationEndpoint || !isUsableToken(refreshToken) || !this.#isSecure(revocationEndpoint)) return false;
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
    const { store, tokenEndpoint, clientId, scope, sharedStore } = this.#config;
    const refreshToken = store.get();
    this.#sent = refreshToken;
    if (!isUsableToken(refreshToken)) {
      return throwError(() => new OAuthError('no_refresh_token', 0, 'there is no refresh token to refresh with'));
    }
    if (!this.#isSecure(tokenEndpoint)) {
      return throwError(() => new OAuthError('insecure_endpoint', 0, 'the token endpoint is not https'));
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
        const tokens = readTokenResponse(body, response.status, this.#config.tokenType);
        if (store.get() !== refreshToken) {
          // Another tab signed in or out while this refresh ran (this tab's own sign-out cancels it):
          // its answer belongs to a session that is over, and must reach neither this tab nor the others.
          if (sharedStore) {
            throw (this.#superseded = new TokenRefreshError(
              'Cancelled',
              typeof ngDevMode !== 'undefined' &&
                ngDevMode &&
                'the session changed in another tab while the refresh ran',
            ));
          }
        } else if (tokens.refreshToken) {
          // Rotated: the new one replaces the one sent at once. Without a new one, the one sent stays
          // valid (RFC 6749 §6).
          store.set(tokens.refreshToken);
        }
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
   * the next 401 tries again. One whose session changed in another tab while it ran ends here
   * quietly: that tab's sign-out (or sign-in) decides. Anything else ends the session: the refresh
   * token is forgotten, the other tabs are told when they share it, and `onSessionExpired` runs (not
   * for `restore()`'s attempt, and not when there was no session to end: a 401 before any sign-in,
   * or after the session ended, whose refresh finds no refresh token).
   */
  refreshFailed(error: unknown): void {
    const last = this.#last;
    if (error === this.#superseded) {
      this.#superseded = null;
      this.#last = null;
      // Signed out there: as if the message had come first (it finds nothing left to end here).
      if (this.#config.store.get() === null && last)
        this.#expired(new OAuthError('signed_out_elsewhere', 0, 'signed out in another tab'));
      return;
    }
    if (isPassingFailure(error)) {
      // The refresh token stays (even with no access token: a restore() that met no network). Not
      // news for other tabs: they have this token, or a newer one.
      if (last) {
        const expiresIn = last.expiresAt === null ? 0 : (last.expiresAt - Date.now()) / 1000;
        this.state.setToken(last.token, { restored: true, expiresIn: expiresIn > 0 ? expiresIn : undefined });
      }
      return;
    }
    // A session there was: an access token, or a refresh token sent (one kept over a reload). Without
    // one (never signed in, or ended already) a 401 has nothing to end: its caller gets the error.
    const hadSession = last !== null || isUsableToken(this.#sent);
    // Tabs share the spent refresh token only when they share the store; a tab that had nothing to
    // end must not end the others'.
    this.#clear(this.#config.sharedStore && hadSession, false);
    if (this.#restoring === 0 && hadSession) {
      this.#expired(
        error instanceof OAuthError
          ? error
          : new OAuthError('invalid_response', 0, 'the refresh did not bring a token', { cause: error }),
      );
    }
  }

  #remember(token: string | null, expiresIn: number | undefined): void {
    this.#last = token === null ? null : { token, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null };
  }

  /**
   * Another tab's token arrived. Taken only while this tab's store holds a refresh token: with a
   * shared store, none there means the session ended (the token was posted just before a sign-out);
   * with the memory store, this tab has no session of its own to refresh it with.
   */
  #received(): void {
    if (isUsableToken(this.#config.store.get())) this.#remember(this.state.token(), undefined);
    else this.state.setToken(null, { restored: true });
  }

  /**
   * Forgets the session: the access token (announced to the other tabs when `announce`), and the
   * refresh token: all of it with `all`, else only the one this tab sent, never a newer one that
   * another tab put in a shared store meanwhile.
   */
  #clear(announce: boolean, all: boolean): void {
    this.#last = null;
    const store = this.#config.store;
    if (all || store.get() === this.#sent) store.set(null);
    this.state.setToken(null, { restored: !announce });
  }

  #signedOutElsewhere(): void {
    // A shared store was cleared by the tab that signed out; clearing it here, possibly much later (a
    // frozen tab), could delete a newer sign-in's refresh token.
    this.#clear(false, !this.#config.sharedStore);
    this.#expired(new OAuthError('signed_out_elsewhere', 0, 'signed out in another tab'));
  }

  #expired(error: OAuthError): void {
    const onSessionExpired = this.#config.onSessionExpired;
    this.#notify(onSessionExpired && (() => onSessionExpired(error)));
  }

  /** Whether `url` may receive refresh tokens, a relative one judged against the page's URL. */
  #isSecure(url: string): boolean {
    return isSecureEndpoint(url, this.#document);
  }
}
