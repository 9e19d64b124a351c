import { isSecureTokenUrl, readBaseHref } from '../core/create-token-url-policy';

/** Stands in for the page when there is none to resolve a relative URL against (configuration time). */
const NO_PAGE = 'https://relative.invalid/';

/**
 * Whether secrets (a refresh token, credentials) may travel to `url` over the wire: `https:`, or
 * `http:` to a loopback host, the rule of the interceptor's URL policy. A relative URL is resolved
 * against `document`'s base URL (`<base href>`, else its location); without a document, or one whose
 * base cannot be read (a server DOM), it counts as secure: judge it again against the page before
 * anything is sent. A URL that does not parse is not secure.
 */
export function isSecureEndpoint(url: string, document: Document | null = null): boolean {
  try {
    return isSecureTokenUrl(new URL(url, readBaseHref(document) ?? NO_PAGE));
  } catch {
    return false;
  }
}
