/* global fetch, Headers, URLSearchParams */
// A browser without scripts, for tests that sign in from Node against the harness's provider: it
// follows redirects, answers the provider's own pages (the devInteractions login and consent forms,
// the logout confirmation, the auto-submitting form_post page) and `<meta http-equiv="refresh">`, and
// keeps cookies as Chromium does on http://localhost (host, path, expiry, Secure, the __Host- and
// __Secure- prefixes, SameSite). The cookies are why it exists: a backend-for-frontend's sign-in is
// right only if the cookies it sets come back where a browser would send them, and a cross-site
// redirect chain is where they do not (see `CookieJar`).

/** Where a walk gives up: a sign-in takes about six steps, a sign-out three. */
const MAX_STEPS = 20;

/**
 * Walks a sign-in as a person in a browser would: from `startUrl` (an authorization request, or an
 * app's route that redirects to one, such as a backend-for-frontend's `/bff/login`) through the
 * provider's login form (any login, any password) and consent form, and on wherever the redirects and
 * pages lead, until a page that is none of those (the app's own page), or a URL that `stopAt` accepts.
 *
 * @example
 *   const { url, cookies } = await browseSignIn('http://127.0.0.1:4330/bff/login', { login: 'ada' });
 *   const session = await cookies.fetch('http://127.0.0.1:4330/bff/session', { headers: { 'x-csrf': '1' } });
 * @param {string | URL} startUrl the first navigation, as if typed in the address bar
 * @param {BrowseOptions & { login?: string, password?: string }} [options] `login` default `'ada'`
 * @returns {Promise<BrowseResult>}
 */
export function browseSignIn(startUrl, options = {}) {
  return browse(startUrl, options);
}

/**
 * Walks an RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) as a browser would: from the
 * provider's end-session URL, answering its confirmation page with "Yes, sign me out" (or, when the
 * browser has no session there, its auto-submitting form), on to the `post_logout_redirect_uri` and
 * beyond, until a page that is none of those or a URL that `stopAt` accepts. Pass the `cookies` of the
 * sign-in: they hold the provider's session that the logout ends.
 *
 * @example
 *   const end = new URL('/session/end', issuer);
 *   end.search = new URLSearchParams({ id_token_hint, post_logout_redirect_uri: 'http://127.0.0.1:4330/' }).toString();
 *   const { url } = await browseSignOut(end, { cookies, stopAt: (next) => next.origin === 'http://127.0.0.1:4330' });
 * @param {string | URL} startUrl the end-session URL (or an app's route that redirects to one)
 * @param {BrowseOptions} [options]
 * @returns {Promise<BrowseResult>}
 */
export function browseSignOut(startUrl, options = {}) {
  return browse(startUrl, { ...options, login: undefined });
}

/**
 * @typedef {object} BrowseOptions
 * @property {CookieJar} [cookies] the browser's cookies, kept and updated; default a new jar (a new
 *   browser, signed in nowhere)
 * @property {(url: URL) => boolean} [stopAt] asked before every navigation; `true` stops the walk
 *   without requesting that URL (for a redirect URI whose code a test exchanges itself)
 */

/**
 * @typedef {object} BrowseResult
 * @property {URL} url where the walk ended: the URL `stopAt` accepted, or the last page's URL
 * @property {boolean} stopped whether `stopAt` ended it (then there is no status, headers or body)
 * @property {number} [status] the last page's status
 * @property {Headers} [headers] the last page's headers
 * @property {string} [body] the last page's body
 * @property {CookieJar} cookies the browser's cookies after the walk
 */

/**
 * @param {string | URL} startUrl
 * @param {BrowseOptions & { login?: string, password?: string }} options
 * @returns {Promise<BrowseResult>}
 */
async function browse(startUrl, { cookies = new CookieJar(), stopAt = () => false, login = 'ada', password = 'any' }) {
  // A typed URL starts a navigation without an initiator: same-site for the cookies' purposes.
  let navigation = { url: new URL(startUrl), method: 'GET', body: undefined, chain: [] };
  for (let step = 0; step < MAX_STEPS; step++) {
    const { url, method, body, chain } = navigation;
    if (stopAt(url)) return { url, stopped: true, cookies };
    const response = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      headers: {
        cookie: cookies.header(url, { chain, method }),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    cookies.store(url, response);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      // 301, 302 and 303 turn a POST into a GET; the chain remembers every site it passed through.
      const keepsMethod = response.status === 307 || response.status === 308;
      navigation = {
        url: new URL(location, url),
        method: keepsMethod ? method : 'GET',
        body: keepsMethod ? body : undefined,
        chain: [...chain, url],
      };
      continue;
    }
    const html = await response.text();
    const next = nextNavigation(url, html, { login, password });
    if (!next) return { url, stopped: false, status: response.status, headers: response.headers, body: html, cookies };
    // A form or a meta refresh is a new navigation that the page itself starts.
    navigation = { ...next, chain: [url] };
  }
  throw new Error(`browse: still walking after ${MAX_STEPS} steps from ${startUrl}`);
}

/**
 * What a person (or the page itself) does next on `html`, or `undefined` for a page that is none of
 * the provider's and has no meta refresh: the end of the walk.
 */
function nextNavigation(url, html, { login, password }) {
  const refresh = /<meta[^>]+http-equiv=["']?refresh["']?[^>]*>/i.exec(html)?.[0];
  const target = refresh && /content=["']?\s*\d*\s*;\s*url=['"]?([^"'>]+)/i.exec(refresh)?.[1];
  if (target) return { url: new URL(decodeHtml(target.trim()), url), method: 'GET', body: undefined };

  const form = /<form\b([^>]*)>/i.exec(html)?.[1];
  const action = form && /\baction="([^"]*)"/i.exec(form)?.[1];
  if (!action || !/\bmethod="post"/i.test(form)) return undefined;
  const fields = new URLSearchParams();
  for (const input of html.matchAll(/<input\b[^>]*type="hidden"[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/.exec(input[0])?.[1];
    const value = /\bvalue="([^"]*)"/.exec(input[0])?.[1];
    if (name !== undefined) fields.append(name, decodeHtml(value ?? ''));
  }
  const prompt = fields.get('prompt');
  if (prompt === 'login') {
    if (login === undefined) throw new Error(`browse: the provider asks for a login at ${url} during a sign-out`);
    fields.set('login', login);
    fields.set('password', password);
  } else if (html.includes('id="op.logoutForm"')) {
    // The confirmation's "Yes, sign me out" button (it sits outside the form, tied to it by `form=`).
    fields.set('logout', 'yes');
  } else if (prompt !== 'consent' && !html.includes('document.forms[0].submit()')) {
    // Neither the provider's login, consent or logout page nor its self-submitting form_post page.
    return undefined;
  }
  return { url: new URL(decodeHtml(action), url), method: 'POST', body: fields };
}

function decodeHtml(text) {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/**
 * A browser's cookies, kept as Chromium keeps them for http://localhost and http://127.0.0.1 (both
 * secure contexts there, so Secure and `__Host-` cookies are stored and sent over plain HTTP):
 * - host-only unless `Domain` says otherwise; `Path` (default: the request path's directory); `Expires`
 *   and `Max-Age`; a cookie set again with a past expiry is removed;
 * - `Secure` only from and to https or loopback; `__Secure-` needs `Secure`, `__Host-` needs `Secure`,
 *   `Path=/` and no `Domain`, or the cookie is refused;
 * - SameSite (default Lax): `Strict` is sent only when the navigation started on the same site and
 *   every redirect of it stayed there; `Lax` is sent across sites to a GET navigation, never to a POST.
 *   A site is the scheme with the host's last two labels (the host itself for an IP address or
 *   `localhost`); ports do not count, as in browsers. Chromium's two-minute grace for POSTs of fresh
 *   cookies without a SameSite attribute is not modelled.
 *
 * So a backend-for-frontend whose callback answers a redirect gets it back without its Strict session
 * cookie after a sign-in at a provider on another site, as in Chromium, and with it when the callback
 * answers a page that navigates on by itself.
 */
export class CookieJar {
  /** @type {Map<string, Cookie>} by domain, path and name */
  #cookies = new Map();

  /**
   * Keeps the `Set-Cookie` headers of `response`, received for `url`.
   *
   * @param {URL} url
   * @param {Response} response
   */
  store(url, response) {
    for (const header of response.headers.getSetCookie()) {
      const cookie = parseSetCookie(url, header);
      if (!cookie) continue;
      const key = `${cookie.domain};${cookie.path};${cookie.name}`;
      if (cookie.expiresAt <= Date.now()) this.#cookies.delete(key);
      else this.#cookies.set(key, cookie);
    }
  }

  /**
   * The `Cookie` header a browser sends with a request to `url`.
   *
   * @param {URL} url
   * @param {{ chain?: URL[], method?: string }} [context] the URLs the navigation came through (its
   *   initiator first, then every redirect): empty for a request of the page's own site or a typed URL
   * @returns {string}
   */
  header(url, { chain = [], method = 'GET' } = {}) {
    const crossSite = chain.some((hop) => siteOf(hop) !== siteOf(url));
    return this.list(url)
      .filter(({ sameSite }) => !crossSite || sameSite === 'none' || (sameSite === 'lax' && method === 'GET'))
      .map(({ name, value }) => `${name}=${value}`)
      .join('; ');
  }

  /**
   * The cookies a same-site request to `url` would carry, longest path first (the order browsers send).
   *
   * @param {URL | string} url
   * @returns {Cookie[]}
   */
  list(url) {
    const target = new URL(url);
    const now = Date.now();
    return [...this.#cookies.values()]
      .filter((cookie) => cookie.expiresAt > now)
      .filter((cookie) =>
        cookie.hostOnly ? target.hostname === cookie.domain : domainMatches(target.hostname, cookie.domain),
      )
      .filter((cookie) => pathMatches(target.pathname, cookie.path))
      .filter((cookie) => !cookie.secure || isSecureContext(target))
      .sort((a, b) => b.path.length - a.path.length);
  }

  /**
   * A request of the signed-in page to `url` (same site, no redirects followed), with the cookies it
   * carries; the answer's cookies are kept.
   *
   * @param {URL | string} url
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async fetch(url, init = {}) {
    const target = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.header(target, { method: init.method ?? 'GET' });
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(target, { redirect: 'manual', ...init, headers });
    this.store(target, response);
    return response;
  }
}

/**
 * @typedef {object} Cookie
 * @property {string} name
 * @property {string} value
 * @property {string} domain
 * @property {boolean} hostOnly
 * @property {string} path
 * @property {number} expiresAt ms since the epoch; `Infinity` for a session cookie
 * @property {boolean} secure
 * @property {boolean} httpOnly
 * @property {'strict' | 'lax' | 'none'} sameSite
 */

/** RFC 6265 §5.2 (the parts browsers use), with Chromium's prefix and SameSite rules; `undefined`: refused. */
function parseSetCookie(url, header) {
  const [pair, ...parts] = header.split(';');
  const equals = pair.indexOf('=');
  if (equals < 1) return undefined;
  const name = pair.slice(0, equals).trim();
  const value = pair.slice(equals + 1).trim();
  const attributes = new Map(
    parts.map((part) => {
      const at = part.indexOf('=');
      return at === -1
        ? [part.trim().toLowerCase(), '']
        : [part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim()];
    }),
  );
  const domainAttribute = attributes.get('domain')?.replace(/^\./, '').toLowerCase();
  if (domainAttribute && !domainMatches(url.hostname, domainAttribute)) return undefined;
  const path = attributes.get('path')?.startsWith('/') ? attributes.get('path') : defaultPath(url);
  const secure = attributes.has('secure');
  if (secure && !isSecureContext(url)) return undefined;
  if (name.startsWith('__Secure-') && !secure) return undefined;
  if (name.startsWith('__Host-') && (!secure || domainAttribute || path !== '/')) return undefined;
  const sameSite =
    ['strict', 'lax', 'none'].find((mode) => mode === attributes.get('samesite')?.toLowerCase()) ?? 'lax';
  if (sameSite === 'none' && !secure) return undefined;

  let expiresAt = Infinity;
  if (attributes.has('max-age') && /^-?\d+$/.test(attributes.get('max-age'))) {
    expiresAt = Date.now() + Number(attributes.get('max-age')) * 1000;
  } else if (attributes.has('expires')) {
    const date = Date.parse(attributes.get('expires'));
    if (!Number.isNaN(date)) expiresAt = date;
  }
  return {
    name,
    value,
    domain: domainAttribute ?? url.hostname,
    hostOnly: !domainAttribute,
    path,
    expiresAt,
    secure,
    httpOnly: attributes.has('httponly'),
    sameSite,
  };
}

function defaultPath(url) {
  const last = url.pathname.lastIndexOf('/');
  return last <= 0 ? '/' : url.pathname.slice(0, last);
}

function pathMatches(requestPath, cookiePath) {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

function domainMatches(host, domain) {
  return host === domain || (host.endsWith(`.${domain}`) && !isIpAddress(host));
}

function isIpAddress(host) {
  return /^\d+\.\d+\.\d+\.\d+$/.test(host) || host.startsWith('[');
}

function isLoopback(host) {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isSecureContext(url) {
  return url.protocol === 'https:' || isLoopback(url.hostname);
}

/** Scheme and registrable domain, approximated by the last two labels (no public suffix list). */
function siteOf(url) {
  const host = url.hostname;
  const registrable = isIpAddress(host) || !host.includes('.') ? host : host.split('.').slice(-2).join('.');
  return `${url.protocol}//${registrable}`;
}
