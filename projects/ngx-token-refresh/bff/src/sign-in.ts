import {
  calculatePKCECodeChallenge,
  generateRandomCodeVerifier,
  generateRandomNonce,
  generateRandomState,
} from 'oauth4webapi';

import type { BffContext } from './bff-context';
import { isSameOriginPath } from './is-same-origin-path';
import { loginCookie } from './login-cookie';
import { signInFailure } from './sign-in-failure';

/** The longest `returnUrl` kept: with the sign-in's secrets, the login cookie stays well below 4 KiB. */
const MAX_RETURN_URL = 2_000;

/**
 * `GET <basePath>/login?returnUrl=/path`: starts a sign-in with the authorization code flow, PKCE
 * (S256), `state` and `nonce`, which the login cookie keeps until the callback; answers 302 to the
 * provider's authorization endpoint.
 *
 * A sign-in that cannot start goes back to the app with `bffError` in the query, as a failed callback
 * does (see `signInFailure`): this route is a navigation too (`signIn()` of the browser assigns
 * `location`), so a JSON error would be the whole page the person sees.
 * - `returnUrl` (default `/`) must be a path of this site, of at most 2 000 characters (the login
 *   cookie carries it). Any other goes to `/` with `bffError=InvalidRequest`, never to itself: the BFF
 *   would be an open redirect that a phishing mail could use with the app's own sign-in.
 * - A provider that does not answer its discovery, or whose metadata has no usable authorization
 *   endpoint, sends the browser back to `returnUrl` with `bffError=ProviderUnavailable`, and the
 *   reason goes to `onWarning`.
 */
export async function signIn(context: BffContext, request: Request): Promise<Response> {
  const returnUrl = new URL(request.url).searchParams.get('returnUrl') ?? '/';
  // The browser's signIn() refuses such a returnUrl before it navigates: the app built a link by hand,
  // or someone else did. Once per instance, so that crafted links cannot flood the log; never the
  // value itself, which is anyone's text.
  if (!isSameOriginPath(returnUrl)) {
    context.warnOnce(
      'return-url-off-site',
      `a sign-in was refused (it went to / with bffError=InvalidRequest): its returnUrl is not a path of this site, such as /account. Check the app's links to ${context.options.basePath}/login; once only, since anyone can make such a link`,
    );
    return signInFailure('/', 'InvalidRequest');
  }
  // The login cookie carries it: browsers drop a cookie above 4 KiB, and the sign-in would fail later.
  if (returnUrl.length > MAX_RETURN_URL) {
    context.warnOnce(
      'return-url-too-long',
      `a sign-in was refused (it went to / with bffError=InvalidRequest): its returnUrl is longer than ${MAX_RETURN_URL} characters. Pass signIn() a shorter one (its default is the current page's URL); once only`,
    );
    return signInFailure('/', 'InvalidRequest');
  }
  let url: URL;
  try {
    const endpoint = (await context.authorizationServer()).authorization_endpoint;
    if (endpoint === undefined || !URL.canParse(endpoint)) {
      throw new Error("the provider's metadata has no authorization_endpoint URL");
    }
    url = new URL(endpoint);
  } catch (error) {
    context.options.onWarning(`a sign-in could not start: ${(error as Error).message}`);
    return signInFailure(returnUrl, 'ProviderUnavailable');
  }
  const { options } = context;
  const attempt = {
    state: generateRandomState(),
    nonce: generateRandomNonce(),
    codeVerifier: generateRandomCodeVerifier(),
    returnUrl,
  };
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
