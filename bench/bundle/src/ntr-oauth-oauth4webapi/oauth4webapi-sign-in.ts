import { DOCUMENT, inject } from '@angular/core';
import { OAuthSession } from 'ngx-token-refresh/oauth';
import * as oauth from 'oauth4webapi';

/** The identity server of the OAuth variants. */
export const ISSUER = new URL('https://id.example.com');

/** This app as the identity server knows it: a public client, so PKCE protects the code. */
export const CLIENT: oauth.Client = { client_id: 'spa' };

/** Where the PKCE verifier and the state wait during the trip to the identity server (this tab only). */
const PENDING = 'bench.pending-sign-in';

/** Fetches the identity server's discovery document; the token endpoint is needed before bootstrap. */
export async function discover(): Promise<oauth.AuthorizationServer> {
  return oauth.processDiscoveryResponse(ISSUER, await oauth.discoveryRequest(ISSUER));
}

/**
 * The sign-in as projects/oidc-demo does it with oauth4webapi (the authorization code flow with PKCE),
 * run at start-up: back from the identity server with a code, exchange it and hand the tokens to
 * `OAuthSession`; otherwise restore the session, and without one leave for the sign-in page.
 */
export async function signIn(server: oauth.AuthorizationServer): Promise<void> {
  const session = inject(OAuthSession);
  const location = inject(DOCUMENT).location;
  const redirectUri = `${location.origin}/callback`;
  const here = new URL(location.href);
  const stored = sessionStorage.getItem(PENDING);
  if (here.searchParams.has('code') && stored) {
    sessionStorage.removeItem(PENDING);
    const { codeVerifier, state } = JSON.parse(stored) as { codeVerifier: string; state: string };
    const parameters = oauth.validateAuthResponse(server, CLIENT, here, state);
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      CLIENT,
      oauth.None(),
      parameters,
      redirectUri,
      codeVerifier,
    );
    session.setTokens(await oauth.processAuthorizationCodeResponse(server, CLIENT, response));
    return;
  }
  if (await session.restore()) return;
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  sessionStorage.setItem(PENDING, JSON.stringify({ codeVerifier, state }));
  const url = new URL(server.authorization_endpoint ?? '');
  url.search = new URLSearchParams({
    client_id: CLIENT.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid offline_access',
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  }).toString();
  location.assign(url);
}
