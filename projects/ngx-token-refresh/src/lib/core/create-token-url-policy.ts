import { isSameOriginPath } from '../internal/is-same-origin-path';

/** Stands in for the application's origin when it has none (server rendering without a request URL). */
const UNKNOWN_ORIGIN = 'https://application.invalid/';

/** Hosts that never leave the machine, so plain `http:` to them exposes no token on the wire. */
const LOOPBACK_HOST = /^(?:localhost|[^/]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a token may travel to `url` over the wire: `https:`, or `http:` to a loopback host. */
export const isSecureTokenUrl = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname));

/**
 * Builds the test deciding whether a request URL may carry the access token: same origin as the
 * application or one of `allowedOrigins`, and `https:` (or `http:` on a loopback host). URLs are
 * resolved the way the browser resolves them, so protocol-relative (`//evil.example`) and backslash
 * tricks (`/\evil.example`) are judged by where they really go.
 *
 * @param allowedOrigins extra origins, as exact strings or patterns tested against the origin.
 * @param readBaseHref gives the URL relative requests resolve against (see {@link readBaseHref}), if
 *   there is one. Called once, on the first test, not at creation: when an application starts, a
 *   server DOM may not offer it yet.
 */
export function createTokenUrlPolicy(
  allowedOrigins: readonly (string | RegExp)[],
  readBaseHref: () => string | undefined,
): (url: string) => boolean {
  const exact = new Set<string>();
  // Sticky and global flags make `test` stateful; the copies are used for plain matching.
  const patterns: RegExp[] = [];
  for (const origin of allowedOrigins) {
    if (typeof origin === 'string') {
      const parsed = parseUrl(origin);
      if (parsed) exact.add(parsed.origin);
    } else {
      patterns.push(new RegExp(origin.source, origin.flags.replace(/[gy]/g, '')));
    }
  }
  let base: URL | undefined;
  let baseAllowed = false;

  return (url) => {
    if (!base) {
      // A base that is no web address (`about:blank` in a document without a URL) is as good as none.
      const parsed = parseUrl(readBaseHref() ?? '');
      base = parsed && /^https?:$/.test(parsed.protocol) ? parsed : new URL(UNKNOWN_ORIGIN);
      baseAllowed = isSecureTokenUrl(base);
    }
    if (isSameOriginPath(url)) return baseAllowed;
    const target = parseUrl(url, base);
    if (!target || !isSecureTokenUrl(target)) return false;
    const origin = target.origin;
    return origin === base.origin || exact.has(origin) || patterns.some((pattern) => pattern.test(origin));
  };
}

/**
 * The URL relative requests resolve against: `document.baseURI` (it honours `<base href>`), else the
 * document's location; `undefined` when neither can be read. Every read is guarded: the server DOM of
 * `@angular/platform-server` throws `NotYetImplemented` for `baseURI`, and other DOMs may lack both.
 */
export function readBaseHref(document: Document | null): string | undefined {
  try {
    if (document?.baseURI) return document.baseURI;
  } catch {
    // The server DOM: fall back to the location, which platform-server sets from the request URL.
  }
  try {
    return document?.location?.href || undefined;
  } catch {
    return undefined;
  }
}

function parseUrl(url: string, base?: URL): URL | null {
  try {
    return new URL(url, base);
  } catch {
    return null;
  }
}
