import { Injectable, type Signal, inject } from '@angular/core';

import { OAuthSessionState } from './oauth-session-state';
import type { OAuthTokenResponse } from './oauth-token-response';

/**
 * The session of an app that signs in against an OAuth 2.0 / OpenID Connect server, set up by
 * {@link provideOAuthRefresh}: hand it the tokens of the sign-in, and the interceptor attaches the
 * access token, refreshes it at the token endpoint and keeps the rotated refresh token.
 *
 * @usageNotes
 * ```ts
 * const session = inject(OAuthSession);
 * // After the authorization code flow (another library's job), with the token endpoint's answer:
 * session.setTokens(tokenResponse);
 * // At start-up, with refreshTokenStore 'local':
 * const signedIn = await session.restore();
 * // Sign out here (and in every tab, with withCrossTabSync()):
 * await session.signOut();
 * ```
 */
@Injectable({ providedIn: 'root' })
export class OAuthSession {
  readonly #state = inject(OAuthSessionState);

  /**
   * The current access token; `null` when signed out. While a refresh runs it is still the old one
   * (requests meanwhile wait for the new one).
   */
  readonly accessToken: Signal<string | null> = this.#state.state.token;

  /**
   * Starts the session with the token endpoint's answer to the sign-in (RFC 6749 §5.1): its access
   * token goes on requests at once (and to the other tabs, with `withCrossTabSync()`), its refresh
   * token into the store, its `expires_in` to `withProactiveRefresh()`. An answer without
   * `refresh_token` is taken, but nothing can renew it: the session ends when its access token
   * expires, and `restore()` finds none. Dev mode warns then (ask for `offline_access` with
   * `prompt=consent`, or turn refresh tokens on for the client at the provider).
   *
   * @throws {OAuthError} `invalid_response` when the answer has no usable `access_token`, a
   *   `token_type` other than `Bearer` (`DPoP` with `withDPoP()`), or an unusable `refresh_token`;
   *   nothing changes then.
   */
  setTokens(response: OAuthTokenResponse): void {
    this.#state.setTokens(response);
  }

  /**
   * Brings the session back after a reload when the refresh token was kept (`refreshTokenStore: 'local'`
   * or a store of the app's): refreshes with it, unless an access token is here already. Resolves
   * `true` with a session, `false` without one (no refresh token, or the server refused it: then it is
   * forgotten, and `onSessionExpired` is not called). A refresh that could not reach the server
   * resolves `false` and keeps the refresh token for the next try.
   */
  restore(): Promise<boolean> {
    return this.#state.restore();
  }

  /**
   * Signs out: forgets the access and refresh tokens (in every tab, with `withCrossTabSync()`) and,
   * with `revocationEndpoint`, revokes the refresh token there (RFC 7009). Resolves `true` when the
   * server confirmed the revocation. Ending the identity server's own session (RP-initiated logout,
   * a redirect) is the sign-in library's job.
   */
  signOut(): Promise<boolean> {
    return this.#state.signOut();
  }
}
