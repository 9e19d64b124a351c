import { isPlatformBrowser } from '@angular/common';
import {
  FetchBackend,
  HttpBackend,
  HttpErrorResponse,
  type HttpEvent,
  HttpResponse,
  type HttpResponseBase,
} from '@angular/common/http';
import {
  ApplicationRef,
  PLATFORM_ID,
  REQUEST,
  RESPONSE_INIT,
  TransferState,
  inject,
  makeStateKey,
  provideEnvironmentInitializer,
} from '@angular/core';
import { tap, throwError } from 'rxjs';

import { isUsableToken } from '../internal/is-usable-token';
import { RuntimeError, warnRuntime } from '../internal/runtime-error';
import { parseJwtClaims } from '../jwt/parse-jwt-claims';
import { isSecureTokenUrl } from '../core/create-token-url-policy';
import type { GateHost, GatePlugin, GatePluginFactory } from '../core/gate-plugin';
import { provideGatePlugin } from '../core/provide-gate-plugin';
import { injectTokenRefresh } from '../core/inject-token-refresh';
import { TokenRefreshError } from '../core/token-refresh-error';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from '../core/token-refresh-feature';

/** Options of {@link withServerSession}. */
export interface ServerSessionOptions {
  /**
   * The name of the refresh cookie (`'__Host-refreshToken'`): then only that cookie goes to the
   * refresh, and a render of a request without it has no session (nothing is refreshed, no request
   * is sent). Without it, the rendered request's whole `Cookie` header goes to the refresh, and any
   * cookie counts as a session. Name it when other cookies of your site (analytics, preferences)
   * should not reach your API. Default: none.
   */
  readonly refreshCookie?: string;
}

/**
 * Where a render leaves its token for the browser, in the page's transfer state. Made in a call
 * marked pure, so that an app without `withServerSession()` ships neither the call nor its text.
 */
const RENDER_TOKEN = /* @__PURE__ */ makeStateKey<string | null>('ngx-token-refresh:token');

/**
 * Signed-in pages rendered on the server, with nothing written by hand: each render refreshes with
 * the user's own refresh cookie, the rotated cookie reaches the browser with the page, and the
 * browser goes on with the render's token instead of refreshing again.
 *
 * On the server, in each render (`@angular/ssr`):
 * - **The session comes from the request being rendered** (`REQUEST`): the refresh request (and only
 *   it, and only when the URL policy lets it carry a token: the app's own API, `allowedOrigins`)
 *   goes out with that request's `Cookie` header (only the `refreshCookie` when named), replacing any
 *   the app set. Nothing else is forwarded.
 * - **Every `Set-Cookie` of its answer reaches the browser** with the rendered page, through
 *   `RESPONSE_INIT`, a refusal's too (a server that clears the cookie clears it in the browser). So
 *   the browser holds the rotated refresh cookie, and its next refresh presents the live one: without
 *   this the browser keeps the rotated-away cookie, and a server with reuse detection ends the session
 *   at its next refresh.
 * - **The page is private**: the render of a request with a session answers
 *   `Cache-Control: private, no-store`, so no cache keeps one user's page, for another or for later.
 * - **The token the render ended with goes to the browser** in the page's transfer state; the browser
 *   takes it at start-up (unless its `exp` has passed), so it makes no refresh of its own on
 *   hydration. The token is then in the HTML of that one private, uncached answer; any script of the
 *   page could read it in memory anyway.
 * - **Without a session** (prerendering at build time, which has no request; a request without
 *   cookies, or without the `refreshCookie` when named): the interceptor lets every request and 401
 *   by untouched, and a refresh asked for (`refresh()`, a guard restoring the session) fails at once
 *   with `TokenRefreshError` `NoSession`, without a request. The browser refreshes after hydration if
 *   it has a session the render did not see.
 * - **Dev mode names the setups that render signed out without a word**, once each: a prerendered
 *   page (signed-in routes need `RenderMode.Server` in `app.routes.server.ts`); a request with
 *   cookies but none named `refreshCookie` (the names it has, never a value); a page rendered for
 *   plain `http:` on a host that is not loopback, where tokens never go (behind a proxy that ends
 *   TLS: `@angular/ssr`'s `trustProxyHeaders`).
 *
 * What the app must do: send the refresh with `HttpClient` through the interceptor (as `provideAuth`
 * and the documented `refreshApiCall` do), and set the refresh cookie's `Path` so that page requests
 * carry it (the reference server: `REFRESH_COOKIE_PATH=/`). The cookie flow only: `provideAuth`
 * refuses it with `refreshFlow: 'body'`, whose refresh token the server never sees.
 *
 * @usageNotes
 * ```ts
 * // app.config.ts, shared by the browser and the server
 * provideAuth({ onSessionExpired: navigateToLogin }, withCrossTabSync(), withServerSession());
 * provideAuth(config, withCrossTabSync(), withServerSession({ refreshCookie: '__Host-refreshToken' }));
 * ```
 *
 * @throws in dev mode, when `refreshCookie` is not a cookie name.
 */
export function withServerSession(options: ServerSessionOptions = {}): TokenRefreshFeature<'ServerSession'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) assertValidServerSessionOptions(options);
  const { refreshCookie = null } = options;
  const factory: GatePluginFactory = (gate) => createRenderSession(gate, refreshCookie);
  return makeTokenRefreshFeature('ServerSession', [
    ...provideGatePlugin(factory),
    // In the browser, at start-up: the render's token, put in place once every feature is (its clock
    // is then planned, the other tabs can ask for it), before the first request goes out.
    provideEnvironmentInitializer(() => {
      if (isPlatformBrowser(inject(PLATFORM_ID))) takeRenderToken(inject(TransferState));
    }),
  ]);
}

/** The render's side: `null` in the browser. */
function createRenderSession(gate: GateHost, refreshCookie: string | null): GatePlugin | null {
  if (isPlatformBrowser(inject(PLATFORM_ID))) return null;
  const transferState = inject(TransferState);
  const request = inject(REQUEST, { optional: true });
  const header = request?.headers.get('cookie') ?? null;
  const cookie = request === null ? null : forwardedCookie(header, refreshCookie);
  if (cookie === null) {
    if (typeof ngDevMode !== 'undefined' && ngDevMode) {
      if (request === null) warnPrerendered(inject(ApplicationRef));
      else if (refreshCookie !== null) warnRefreshCookieMissing(header, refreshCookie);
    }
    // Prerendering, or a request without the refresh cookie (a first visit, a link followed from
    // another site, which sends no SameSite=Strict cookie): there is no session to refresh, and a
    // refresh without one would only be refused, with a Set-Cookie that clears the cookie. The 401s
    // go to their callers as they are; the browser refreshes after hydration if it has a session.
    gate.ref.disable();
    return NO_SESSION;
  }
  if (typeof ngDevMode !== 'undefined' && ngDevMode) warnPlainHttpPage(request?.url);
  if (typeof ngDevMode !== 'undefined' && ngDevMode && !(inject(HttpBackend) instanceof FetchBackend)) {
    warnRuntime(
      'ServerSessionWithoutFetch',
      'withServerSession() needs HttpClient over fetch on the server: the XHR backend there refuses to send a Cookie header and drops Set-Cookie from answers; add withFetch() to provideHttpClient (Angular 22 uses fetch by default)',
    );
  }
  // Headers count only when set before the render is stable: @angular/ssr builds the answer then,
  // before the transfer state is written. A request with the session may be rendered for a
  // signed-in user, so its page is nobody else's from the start.
  const response = inject(RESPONSE_INIT, { optional: true });
  keepPrivate(response);
  transferState.onSerialize(RENDER_TOKEN, () => gate.token());
  let warned = false;
  return {
    sendRefresh: (refresh, next, allowed) => {
      if (!allowed) {
        if (typeof ngDevMode !== 'undefined' && ngDevMode && !warned) {
          warned = true;
          warnCookiesWithheld(refresh.url, request?.url);
        }
        return next(refresh);
      }
      // The rendered request's cookies and no others: a Cookie header the app set itself is dropped.
      const sent = refresh.clone({ headers: refresh.headers.set('Cookie', cookie) });
      return next(sent).pipe(
        tap({
          next: (event: HttpEvent<unknown>) => {
            if (event instanceof HttpResponse) passCookiesOn(event, response);
          },
          error: (error: unknown) => {
            if (error instanceof HttpErrorResponse) passCookiesOn(error, response);
          },
        }),
      );
    },
  };
}

/**
 * The `Cookie` header to forward: the request's whole header, or only its cookies named
 * `refreshCookie`; `null` when that leaves nothing.
 */
function forwardedCookie(header: string | null, refreshCookie: string | null): string | null {
  if (header === null || header.trim() === '') return null;
  if (refreshCookie === null) return header;
  const named = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.slice(0, pair.indexOf('=')).trim() === refreshCookie && pair.indexOf('=') > 0);
  return named.length > 0 ? named.join('; ') : null;
}

function assertValidServerSessionOptions(options: ServerSessionOptions): void {
  const fail = (problem: string): never => {
    throw new RuntimeError('InvalidOptions', `withServerSession: ${problem}`);
  };
  if (typeof options !== 'object' || options === null) fail(`options must be an object, got ${String(options)}`);
  const { refreshCookie } = options;
  // A cookie name is an RFC 6265 token: visible ASCII without separators.
  if (
    refreshCookie !== undefined &&
    !(typeof refreshCookie === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(refreshCookie))
  ) {
    fail(`refreshCookie must be a cookie name, got ${String(refreshCookie)}`);
  }
}

/** The browser: the token the render ended with, unless it expired meanwhile, then gone from the page's state. */
function takeRenderToken(transferState: TransferState): void {
  const token = transferState.get(RENDER_TOKEN, null);
  transferState.remove(RENDER_TOKEN);
  const refresh = injectTokenRefresh();
  if (!isUsableToken(token) || refresh.token() !== null) return;
  const exp = parseJwtClaims(token)?.exp;
  if (typeof exp === 'number' && exp * 1000 <= Date.now()) return;
  refresh.setToken(token, { restored: true });
}

/** A render without a session (prerendering, no refresh cookie): nothing to refresh with, and nothing sent. */
const NO_SESSION: GatePlugin = {
  sendRefresh: () =>
    throwError(
      () =>
        new TokenRefreshError(
          'NoSession',
          typeof ngDevMode !== 'undefined' &&
            ngDevMode &&
            'this server render has no session to refresh with (prerendering, or a request without the refresh cookie)',
        ),
    ),
};

/** Every `Set-Cookie` of `answer`, added to the rendered page's answer, which stays private. */
function passCookiesOn(answer: HttpResponseBase, response: ResponseInit | null): void {
  const cookies = answer.headers.getAll('set-cookie');
  if (response === null || cookies === null) return;
  const headers = headersOf(response);
  for (const cookie of cookies) headers.append('Set-Cookie', cookie);
  // Again, in case the app replaced it meanwhile: a page that sets cookies is never shared.
  keepPrivate(response);
}

/** The page depends on who asked for it: no shared cache may keep it, no cache may store it. */
function keepPrivate(response: ResponseInit | null): void {
  if (response !== null) headersOf(response).set('Cache-Control', 'private, no-store');
}

/** The answer's headers as a `Headers` (which keeps several `Set-Cookie` apart), made one if needed. */
function headersOf(response: ResponseInit): Headers {
  const headers = response.headers;
  if (headers instanceof Headers) return headers;
  const converted = new Headers(headers);
  (response as { headers?: HeadersInit }).headers = converted;
  return converted;
}

/**
 * What dev mode has said once in this process: a server renders each request, and prerendering each
 * route, in an application of its own, so no injector outlives one page; one notice per process
 * (per cause) is what keeps a setup mistake from repeating on every page.
 */
let shown: Set<string> | undefined;

/** Whether `key` is new to this process (then it is remembered). */
function firstTime(key: string): boolean {
  shown ??= new Set();
  if (shown.has(key)) return false;
  shown.add(key);
  return true;
}

/**
 * Dev mode: a server render without `REQUEST` is a prerender (`RenderMode.Prerender`, which
 * `ng new --ssr` gives every route; `ng serve` renders those routes on each visit, `ng build` once)
 * or a server that provides no request (`CommonEngine`): it has no session, so the page renders
 * signed out, for everybody. Client-rendered routes (`RenderMode.Client`) never run the app on the
 * server. Said once the render is stable, and only when a root component was rendered: route
 * extraction at build and serve time bootstraps the app without one, and is no page.
 */
function warnPrerendered(applicationRef: ApplicationRef): void {
  void applicationRef.whenStable().then(() => {
    if (applicationRef.components.length === 0 || !firstTime('ServerSessionPrerendered')) return;
    warnRuntime(
      'ServerSessionPrerendered',
      `withServerSession(): this page is rendered on the server without a request (REQUEST is null): ` +
        `it is prerendered (RenderMode.Prerender, which ng new --ssr gives every route with ` +
        `{ path: '**', renderMode: RenderMode.Prerender }), so it has no session and renders signed out, ` +
        `for everybody. Give the routes that show a signed-in user RenderMode.Server in app.routes.server.ts, ` +
        `e.g. { path: 'account', renderMode: RenderMode.Server }; pages that are the same for everybody may stay ` +
        `prerendered. (A server that provides no REQUEST, such as CommonEngine, has the same effect: use ` +
        `AngularNodeAppEngine.) (Shown once.)`,
    );
  });
}

/**
 * Dev mode: the request has cookies, none of them the named refresh cookie. A signed-out visitor
 * with other cookies looks the same, so the text says what to check; once per set of names, so
 * that signing in (a new name among them) is said again.
 */
function warnRefreshCookieMissing(header: string | null, refreshCookie: string): void {
  const names = [
    ...new Set(
      (header ?? '')
        .split(';')
        .filter((pair) => pair.indexOf('=') > 0)
        .map((pair) => pair.slice(0, pair.indexOf('=')).trim()),
    ),
  ].sort();
  if (names.length === 0 || !firstTime(`ServerSessionRefreshCookieMissing ${names.join(';')}`)) return;
  // `__Host-` and `__Secure-` names need https: a server on local http names its cookie without them.
  const bare = (name: string) => name.replace(/^__(?:Host|Secure)-/i, '').toLowerCase();
  const lookalike = names.find((name) => bare(name) === bare(refreshCookie));
  warnRuntime(
    'ServerSessionRefreshCookieMissing',
    `withServerSession(): this request has cookies (${names.join(', ')}) but none named ${refreshCookie} ` +
      `(refreshCookie), so it is rendered signed out. ` +
      (lookalike === undefined ? '' : `${lookalike} looks like the refresh cookie under another name. `) +
      `If this browser is signed in, set refreshCookie to the name your server gives the refresh cookie: ` +
      `names with __Host- or __Secure- need https, so on local http the server names it otherwise ` +
      `(the reference server with COOKIE_SECURE=false: refreshToken). A cookie whose Path leaves out the ` +
      `pages (Path=/auth/refresh) never comes with a page request either. (Shown once for these names.)`,
  );
}

/** Plain `http:` on a host that is not loopback: a URL no token goes to, whatever `allowedOrigins` says. */
function plainHttpOrigin(url: string, base?: string): string | null {
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'http:' && !isSecureTokenUrl(parsed) ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * Dev mode: the page's URL, as Node saw the request, is plain http on a host that is not loopback.
 * The URL policy judges the render's relative URLs (`/api`, `/auth/refresh`) against it, so none
 * carries a token and no refresh goes out. Behind a proxy that terminates TLS this is most often
 * `@angular/ssr` not trusting the proxy's `X-Forwarded-Proto` (Angular 22 trusts no `X-Forwarded-*`
 * header unless told). Once per origin.
 */
function warnPlainHttpPage(pageUrl: string | undefined): void {
  const origin = pageUrl === undefined ? null : plainHttpOrigin(pageUrl);
  if (origin === null || !firstTime(`ServerSessionPlainHttpPage ${origin}`)) return;
  warnRuntime(
    'ServerSessionPlainHttpPage',
    `withServerSession(): this page is rendered for ${origin}, plain http on a host that is not loopback, ` +
      `where tokens never go (allowedOrigins cannot change that): the render's requests to it carry no token ` +
      `and it sends no refresh, so it renders signed out. Behind a proxy that terminates TLS, Node sees http ` +
      `unless @angular/ssr trusts the proxy's X-Forwarded-Proto: in server.ts, new AngularNodeAppEngine({ ` +
      `trustProxyHeaders: ['x-forwarded-proto', ...] }) listing every X-Forwarded-* header the proxy sets (or ` +
      `NG_TRUST_PROXY_HEADERS), with a proxy that sets X-Forwarded-Proto. Without a proxy, serve the app over ` +
      `https, or open it at localhost. (Shown once for this origin.)`,
  );
}

/**
 * Dev mode: the render's refresh went out without the request's cookies, because the URL policy
 * refused its URL. Plain http to a host that is not loopback is refused whatever `allowedOrigins`
 * says, so then the text names that cause instead of `allowedOrigins`.
 */
function warnCookiesWithheld(refreshUrl: string, pageUrl: string | undefined): void {
  const plain = plainHttpOrigin(refreshUrl, pageUrl);
  warnRuntime(
    'ServerSessionCookiesWithheld',
    `withServerSession(): the refresh request to ${refreshUrl} went out without the rendered request's cookies, ` +
      (plain === null
        ? `because tokens may not go there; add its origin to allowedOrigins if it is your API`
        : `because it goes to ${plain}, plain http on a host that is not loopback, where tokens never go ` +
          `(allowedOrigins cannot change that). If that is this page's own origin behind a proxy that terminates ` +
          `TLS, let @angular/ssr trust the proxy's X-Forwarded-Proto (trustProxyHeaders); if it is an API inside ` +
          `your network, call it by the URL the browser uses and rewrite that to the internal address in an ` +
          `interceptor after tokenRefreshInterceptor (README: Server-rendered sessions)`),
  );
}
