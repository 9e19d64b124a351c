import { clearedLoginCookie } from './login-cookie';
import { signInReturnUrl } from './sign-in-return-url';

/**
 * Why a sign-in failed at the callback, as the app reads it in `bffError`:
 * - `SignInFailed`: the provider did not sign the user in (the user pressed Cancel: `access_denied`),
 *   or refused the sign-in's code (spent, expired, or a client that the provider does not accept);
 * - `InvalidRequest`: the answer belongs to no sign-in of this browser (no login cookie, another
 *   `state` or `iss`: a replayed or stale callback URL, or a sign-in that took over ten minutes);
 * - `ProviderUnavailable`: the provider did not answer the code grant, or not as OAuth says.
 */
export type SignInFailureCode = 'SignInFailed' | 'InvalidRequest' | 'ProviderUnavailable';

/** An OAuth error code (`access_denied`, `login_required`...), the only part of the provider's answer passed on. */
const OAUTH_ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A failed callback's answer: 303 back to the sign-in's `returnUrl` (`/` when no sign-in of this
 * browser is known) with `bffError=<code>`, and `bffErrorReason=<OAuth error>` when the provider
 * itself said why (`access_denied` when the user cancelled); the login cookie is cleared, since a
 * sign-in's secrets serve one answer.
 *
 * Why a redirect to the app, not an error: the callback is only ever a top-level navigation back from
 * the provider, so a JSON error there would be the whole page the person sees, with no way on but
 * the Back button. The app gets control back: it says what happened in its own words, or starts a
 * new sign-in. Unlike the successful callback (a page that moves on, so that the `SameSite=Strict`
 * session cookie reaches the next page), a redirect is right here: no session exists whose cookie
 * would be held back in the cross-site redirect chain.
 *
 * Nothing else from the callback's URL reaches `Location`: the provider's `error_description` and
 * `error_uri` are text that anyone can put in a link (shown by the app, a phishing message would
 * carry the app's name), and the code must not leak, which is also why no `Referer` goes onwards.
 * `returnUrl` keeps its own path, query and fragment, less an earlier failure's parameters (see
 * `signInReturnUrl`); characters that a header cannot carry are percent-encoded, as a browser would.
 * It is a path of this site, checked by `/login` and again when the login cookie is read.
 */
export function signInFailure(returnUrl: string, code: SignInFailureCode, providerError?: string): Response {
  const parameters = [`bffError=${code}`];
  if (providerError !== undefined && OAUTH_ERROR_CODE.test(providerError)) {
    parameters.push(`bffErrorReason=${providerError}`);
  }
  return new Response(null, {
    status: 303,
    headers: {
      location: headerSafe(signInReturnUrl(returnUrl, parameters)),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'set-cookie': clearedLoginCookie(),
    },
  });
}

/**
 * `location` with every character outside printable ASCII percent-encoded as UTF-8: a header value
 * holds bytes (`new Headers` throws on `é`), and browsers encode the same characters in a URL anyway.
 */
function headerSafe(location: string): string {
  return location.replace(/[^\x21-\x7e]/gu, (char) =>
    Array.from(new TextEncoder().encode(char), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(
      '',
    ),
  );
}
