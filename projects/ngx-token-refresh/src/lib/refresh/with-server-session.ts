import { isPlatformBrowser } from '@angular/common';
import {
  FetchBackend,
  HttpBackend,
  HttpErrorResponse,
  type HttpEvent,
  HttpResponse,
  type HttpResponseBase,
} from '@angular/common/http';
import { PLATFORM_ID, REQUEST, RESPONSE_INIT, TransferState, inject, makeStateKey } from '@angular/core';
import { tap, throwError } from 'rxjs';

import { isUsableToken } from '../internal/is-usable-token';
import { RuntimeError, warnRuntime } from '../internal/runtime-error';
import { parseJwtClaims } from '../jwt/parse-jwt-claims';
import { RENDER_SESSION, type RenderSession, type RenderSessionFactory, type SessionGate } from './render-session';
import { TokenRefreshError } from './token-refresh-error';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from './token-refresh-feature';

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

/** Where a render leaves its token for the browser, in the page's transfer state. */
const RENDER_TOKEN = makeStateKey<string | null>('ngx-token-refresh:token');

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
  const factory: RenderSessionFactory = (gate) => createRenderSession(gate, refreshCookie);
  return makeTokenRefreshFeature('ServerSession', [{ provide: RENDER_SESSION, useValue: factory }]);
}

function createRenderSession(gate: SessionGate, refreshCookie: string | null): RenderSession | null {
  const transferState = inject(TransferState);
  if (isPlatformBrowser(inject(PLATFORM_ID))) {
    takeRenderToken(gate, transferState);
    return null;
  }
  const request = inject(REQUEST, { optional: true });
  const cookie = request === null ? null : forwardedCookie(request.headers.get('cookie'), refreshCookie);
  if (cookie === null) {
    // Prerendering, or a request without the refresh cookie (a first visit, a link followed from
    // another site, which sends no SameSite=Strict cookie): there is no session to refresh, and a
    // refresh without one would only be refused, with a Set-Cookie that clears the cookie. The 401s
    // go to their callers as they are; the browser refreshes after hydration if it has a session.
    gate.disable();
    return NO_SESSION;
  }
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
          warnRuntime(
            'ServerSessionCookiesWithheld',
            `withServerSession(): the refresh request to ${refresh.url} went out without the rendered request's cookies, because tokens may not go there; add its origin to allowedOrigins if it is your API`,
          );
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
function takeRenderToken(gate: SessionGate, transferState: TransferState): void {
  const token = transferState.get(RENDER_TOKEN, null);
  transferState.remove(RENDER_TOKEN);
  if (!isUsableToken(token) || gate.token() !== null) return;
  const exp = parseJwtClaims(token)?.exp;
  if (typeof exp === 'number' && exp * 1000 <= Date.now()) return;
  gate.restore(token);
}

/** A render without a session (prerendering, no refresh cookie): nothing to refresh with, and nothing sent. */
const NO_SESSION: RenderSession = {
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
