import { DOCUMENT, EnvironmentInjector, Injectable, inject, runInInjectionContext } from '@angular/core';
import { injectDPoPKeyPair } from 'ngx-token-refresh';
import * as oauth from 'oauth4webapi';

import { AUTHORIZATION_SERVER, CLIENT, USE_DPOP, requestOptions } from './authorization-server';

/** Where the PKCE verifier and the state wait during the trip to the provider's pages (this tab only). */
const PENDING_SIGN_IN = 'oidc-demo.pending-sign-in';

interface PendingSignIn {
  readonly codeVerifier: string;
  readonly state: string;
}

/**
 * The sign-in: the authorization code flow with PKCE (RFC 7636, S256), done by oauth4webapi. The
 * library takes over afterwards, with the token response that {@link OidcSignIn.complete} returns.
 */
@Injectable({ providedIn: 'root' })
export class OidcSignIn {
  readonly #server = inject(AUTHORIZATION_SERVER);
  readonly #location = inject(DOCUMENT).location;
  readonly #dpop = inject(USE_DPOP);
  readonly #injector = inject(EnvironmentInjector);

  /** Leaves for the provider's sign-in page; it comes back to `/callback`. */
  async start(): Promise<void> {
    const pending: PendingSignIn = {
      codeVerifier: oauth.generateRandomCodeVerifier(),
      state: oauth.generateRandomState(),
    };
    sessionStorage.setItem(PENDING_SIGN_IN, JSON.stringify(pending));
    const url = new URL(this.#server.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      client_id: CLIENT.client_id,
      redirect_uri: this.#redirectUri(),
      response_type: 'code',
      // offline_access asks for a refresh token, and OpenID Connect Core §11 grants it only with
      // prompt=consent in the same request: without it, oidc-provider's default policy drops the scope
      // and issues no refresh token (setTokens() then warns in dev mode). Providers differ (Keycloak
      // issues one anyway, Auth0 and Okta need offline_access); consent is asked for every sign-in.
      scope: 'openid offline_access',
      prompt: 'consent',
      code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
    }).toString();
    this.#location.assign(url);
  }

  /**
   * Checks the provider's answer at `/callback` (its `state`, or the error it reports) and exchanges
   * the code for tokens, proving with the verifier that this tab started the sign-in.
   */
  async complete(callbackUrl: URL): Promise<oauth.TokenEndpointResponse> {
    const stored = sessionStorage.getItem(PENDING_SIGN_IN);
    sessionStorage.removeItem(PENDING_SIGN_IN);
    if (!stored) throw new Error('No sign-in was started in this tab.');
    const { codeVerifier, state } = JSON.parse(stored) as PendingSignIn;
    const server = this.#server;
    const parameters = oauth.validateAuthResponse(server, CLIENT, callbackUrl, state);
    // With DPoP, the exchange proves the key withDPoP() signs with (from IndexedDB, or made now), so
    // the tokens are bound to the key the library refreshes and calls with.
    const DPoP = this.#dpop
      ? oauth.DPoP(CLIENT, await runInInjectionContext(this.#injector, injectDPoPKeyPair))
      : undefined;
    const exchange = async () =>
      oauth.processAuthorizationCodeResponse(
        server,
        CLIENT,
        await oauth.authorizationCodeGrantRequest(
          server,
          CLIENT,
          oauth.None(),
          parameters,
          this.#redirectUri(),
          codeVerifier,
          { ...requestOptions(server.issuer), DPoP },
        ),
      );
    try {
      return await exchange();
    } catch (error) {
      // A provider that asks for a nonce answers the first proof with use_dpop_nonce (before it looks
      // at the code); the handle has kept the nonce, and the exchange is made once more.
      if (DPoP && oauth.isDPoPNonceError(error)) return exchange();
      throw error;
    }
  }

  #redirectUri(): string {
    return `${this.#location.origin}/callback`;
  }
}
