import { ɵisSameOriginPath as isSameOriginPath } from 'ngx-token-refresh';

/** Resolves a root-relative path when only its path matters: it stays on the page's origin, whatever that is. */
const THIS_SITE = 'https://this-site.invalid/';

/**
 * Builds the test telling the BFF's requests from the others: it returns the path and query of a
 * request URL that goes to this site under one of `prefixes` (a path equal to one, or below it:
 * `/api` and `/api/users`, never `/apiary`), and `null` for any other URL. URLs are resolved as the
 * browser resolves them, against the page's base URL, so protocol-relative (`//evil.example/api`)
 * and backslash (`/\evil.example/api`) URLs are judged by the origin they really go to, and dot
 * segments by the path they really reach.
 */
export function createBffUrlMatcher(prefixes: readonly string[], document: Document): (url: string) => string | null {
  return (url) => {
    let target: URL;
    try {
      if (isSameOriginPath(url)) {
        target = new URL(url, THIS_SITE);
      } else {
        // Read on every call: without <base href>, a path-relative URL depends on the current page.
        const base = pageBase(document);
        if (base === null) return null;
        target = new URL(url, base);
        if (target.origin !== base.origin) return null;
      }
    } catch {
      return null;
    }
    const path = target.pathname;
    return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ? path + target.search : null;
  };
}

/**
 * The web address relative URLs resolve against: `document.baseURI` (it honours `<base href>`), else
 * the location, `null` without either. The server DOM of `@angular/platform-server` throws for
 * `baseURI`; its location is the rendered request's URL.
 */
function pageBase(document: Document): URL | null {
  for (const read of [() => document.baseURI, () => document.location.href]) {
    try {
      const base = new URL(read());
      if (base.protocol === 'https:' || base.protocol === 'http:') return base;
    } catch {
      // Not readable here, or no web address (about:blank): try the next.
    }
  }
  return null;
}
