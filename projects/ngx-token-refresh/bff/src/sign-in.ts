import {
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomNonce,
  generateRandomState,
} from 'oauth4webapi';

import type { BffContext } from './bff-context';
import { isSameOriginPath } from './is-same-origin-path';
import { jsonError } from './json-error';
import { loginCookie } from './login-cookie';

/** The longest `returnUrl` kept: with the sign-in's secrets, the login cookie stays well below 4 KiB. */
const MAX_RETURN_URL = 2_000;

/**
 * `GET <basePath>/login?returnUrl=/path`: starts a sign-in with the authorization code flow, PKCE
 * (S256), `state` and `nonce`, which the login cookie keeps until the callback; answers 302 to the
 * provider's authorization endpoint.
 *
 * `returnUrl` (default `/`) must be a path of this site: anything else would make the BFF an open
 * redirect that a phishing mail could use with the app's own sign-in (400 `InvalidRequest`).
 */
export async function signIn(context: BffContext, request: Request): Promise<Response> {
  const returnUrl = new URL(request.url).searchParams.get('returnUrl') ?? '/';
  if (!isSameOriginPath(returnUrl)) {
    return jsonError(400, 'InvalidRequest', 'returnUrl must be a path of this site, such as /account.');
  }
  // The login cookie carries it: browsers drop a cookie above 4 KiB, and the sign-in would fail later.
  if (returnUrl.length > MAX_RETURN_URL) {
    return jsonError(400, 'InvalidRequest', `returnUrl must be at most ${MAX_RETURN_URL} characters long.`);
  }
  let authorizationEndpoint: string | undefined;
  try {
    authorizationEndpoint = (await context.authorizationServer()).authorization_endpoint;
  } catch (error) {
    return jsonError(503, 'ProviderUnavailable', `The sign-in cannot start: ${(error as Error).message}.`);
  }
  if (authorizationEndpoint === undefined) {
    return jsonError(503, 'ProviderUnavailable', 'The provider has no authorization_endpoint.');
  }
  const { options } = context;
  const attempt = {
    state: generateRandomState(),
    nonce: generateRandomNonce(),
    codeVerifier: generateRandomCodeVerifier(),
    returnUrl,
  };
  const url = new URL(authorizationEndpoint);
  for (const [name, value] of Object.entries(options.authorizationParams)) url.searchParams.set(name, value);
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('scope', options.scope);
  url.searchParams.set('state', attempt.state);
  url.searchParams.set('nonce', attempt.nonce);
  url.searchParams.set('code_challenge', await calculatePKCECodeChallenge(attempt.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return new Response(null, {
    status: 302,
    headers: { location: url.href, 'set-cookie': loginCookie(attempt), 'cache-control': 'no-store' },
  });
}
