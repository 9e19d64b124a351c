import { clearedLoginCookie } from './login-cookie';
import { signInReturnUrl } from './sign-in-return-url';

/**
 * Why a sign-in failed, as the app reads it in `bffError`:
 * - `SignInFailed`: the provider did not sign the user in (the user pressed Cancel: `access_denied`),
 *   or refused the sign-in's code (spent, expired, or a client that the provider does not accept);
 * - `InvalidRequest`: at `/login`, a `returnUrl` that is not a path of this site, or too long; at the
 *   callback, an answer that belongs to no sign-in of this browser (no login cookie, another `state`
 *   or `iss`: a replayed or stale callback URL, or a sign-in that took over ten minutes);
 * - `ProviderUnavailable`: the provider did not answer (its discovery at `/login`, the code grant at
 *   the callback), or not as OAuth says.
 */
export type SignInFailureCode = 'SignInFailed' | 'InvalidRequest' | 'ProviderUnavailable';

/** An OAuth error code (`access_denied`, `login_required`...), the only part of the provider's answer passed on. */
const OAUTH_ERROR_CODE = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * A failed sign-in's answer, at `/login` or at the callback: 303 back to the sign-in's `returnUrl`
 * (`/` when it is not known, or not one to go to) with `bffError=<code>`, and
 * `bffErrorReason=<OAuth error>` when the provider itself said why (`access_denied` when the user
 * cancelled); the login cookie is cleared, since a sign-in's secrets serve one answer, and a sign-in
 * that could not start replaces the browser's earlier one as a started one would.
 *
 * Why a redirect to the app, not an error: both routes are only ever top-level navigations (`/login`
 * from the app's `signIn()`, the callback back from the provider), so a JSON error there would be the
 * whole page the person sees, with no way on but the Back button. The app gets control back: it says
 * what happened in its own words, or starts a new sign-in. Unlike the successful callback (a page that
 * moves on, so that the `SameSite=Strict` session cookie reaches the next page), a redirect is right
 * here: no session exists whose cookie would be held back in the cross-site redirect chain.
 *
 * Nothing else from the callback's URL reaches `Location`: the provider's `error_description` and
 * `error_uri` are text that anyone can put in a link (shown by the app, a phishing message would
 * carry the app's name), and the code must not leak, which is also why no `Referer` goes onwards.
 * `returnUrl` keeps its own path, query and fragment, less an earlier failure's parameters (see
 * `signInReturnUrl`); characters that a header cannot carry are percent-encoded, as a browser would.
 * It must be a path of this site, which `/login` checks (and sends anything else to `/`), and the
 * callback again when it reads the login cookie.
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
