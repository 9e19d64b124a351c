import { browseSignIn } from '../../e2e/oidc/oidc-provider-server.mjs';

/** The BFF's session cookie. */
export const SESSION_COOKIE = '__Host-bff-session';

/**
 * Signs `login` in through the BFF at `baseUrl` as a browser would (from `/bff/login`, through the
 * provider's login and consent pages, back to the BFF's callback), and answers the value of the
 * session cookie the browser then holds: all that a page's calls carry.
 */
export async function signInThroughBff(baseUrl, login) {
  const page = await browseSignIn(`${baseUrl}/bff/login?returnUrl=/`, { login });
  const cookie = page.cookies.list(baseUrl).find(({ name }) => name === SESSION_COOKIE);
  if (cookie === undefined) {
    throw new Error(`the sign-in of ${login} left no session cookie: ${page.status} at ${page.url}`);
  }
  return cookie.value;
}

/** The headers of a page's call through the BFF: its session cookie, the CSRF header, and what Chromium adds. */
export function bffCallHeaders(session) {
  return { cookie: `${SESSION_COOKIE}=${session}`, 'x-csrf': '1', 'sec-fetch-site': 'same-origin' };
}
