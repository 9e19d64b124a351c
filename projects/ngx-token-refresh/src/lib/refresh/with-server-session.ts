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
import { warnRuntime } from '../internal/runtime-error';
import { parseJwtClaims } from '../jwt/parse-jwt-claims';
import { RENDER_SESSION, type RenderSession, type RenderSessionFactory, type SessionGate } from './render-session';
import { TokenRefreshError } from './token-refresh-error';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from './token-refresh-feature';

/** Where a render leaves its token for the browser, in the page's transfer state. */
const RENDER_TOKEN = makeStateKey<string | null>('ngx-token-refresh:token');

/**
 * Signed-in pages rendered on the server, with nothing written by hand: each render refreshes with
 * the user's own refresh cookie, the rotated cookie reaches the browser with the page, and the
 * browser goes on with the render's token instead of refreshing again.
 *
 * On the server, in each render (`@angular/ssr`):
 * - **The session comes from the request being rendered** (`REQUEST`): the refresh request (and only
 *   it, and only when the URL policy lets it carry a token: the app's own API) goes out with that
 *   request's `Cookie` header, replacing any the app set. Nothing else is forwarded.
 * - **Every `Set-Cookie` of its answer reaches the browser** with the rendered page, through
 *   `RESPONSE_INIT`, a refusal's too (a server that clears the cookie clears it in the browser). So
 *   the browser holds the rotated refresh cookie, and its next refresh presents the live one: without
 *   this the browser keeps the rotated-away cookie, and a server with reuse detection ends the session
 *   at its next refresh.
 * - **The page is private**: the render of a request that carries cookies answers
 *   `Cache-Control: private, no-store`, so no cache keeps one user's page, for another or for later.
 * - **The token the render ended with goes to the browser** in the page's transfer state; the browser
 *   takes it at start-up (unless its `exp` has passed), so it makes no refresh of its own on
 *   hydration. The token is then in the HTML of that one private, uncached answer; any script of the
 *   page could read it in memory anyway.
 * - **Without a request** (prerendering at build time) there is no session: the interceptor lets
 *   every request and 401 by untouched, and a refresh asked for (`refresh()`, a guard restoring the
 *   session) fails at once with `TokenRefreshError` `NoSession`, without a request.
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
 * ```
 */
export function withServerSession(): TokenRefreshFeature<'ServerSession'> {
  return makeTokenRefreshFeature('ServerSession', [{ provide: RENDER_SESSION, useValue: createRenderSession }]);
}

const createRenderSession: RenderSessionFactory = (gate) => {
  const transferState = inject(TransferState);
  if (isPlatformBrowser(inject(PLATFORM_ID))) {
    takeRenderToken(gate, transferState);
    return null;
  }
  const request = inject(REQUEST, { optional: true });
  if (request === null) {
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
  // before the transfer state is written. A request with cookies may be rendered for a signed-in
  // user, so its page is nobody else's from the start.
  const response = inject(RESPONSE_INIT, { optional: true });
  const cookie = request.headers.get('cookie');
  if (cookie !== null) keepPrivate(response);
  transferState.onSerialize(RENDER_TOKEN, () => gate.token());
  return {
    sendRefresh: (refresh, next) => {
      // The rendered request's cookies and no others: one the app set itself is dropped.
      const headers = cookie === null ? refresh.headers.delete('Cookie') : refresh.headers.set('Cookie', cookie);
      const sent = refresh.clone({ headers });
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
};

/** The browser: the token the render ended with, unless it expired meanwhile, then gone from the page's state. */
function takeRenderToken(gate: SessionGate, transferState: TransferState): void {
  const token = transferState.get(RENDER_TOKEN, null);
  transferState.remove(RENDER_TOKEN);
  if (!isUsableToken(token) || gate.token() !== null) return;
  const exp = parseJwtClaims(token)?.exp;
  if (typeof exp === 'number' && exp * 1000 <= Date.now()) return;
  gate.restore(token);
}

/** A render without a request (prerendering): nothing to refresh with, and nothing sent. */
const NO_SESSION: RenderSession = {
  sendRefresh: () =>
    throwError(
      () =>
        new TokenRefreshError(
          'NoSession',
          typeof ngDevMode !== 'undefined' &&
            ngDevMode &&
            'a server render without a request (prerendering) has no session to refresh with',
        ),
    ),
};

/** Every `Set-Cookie` of `answer`, added to the rendered page's answer. */
function passCookiesOn(answer: HttpResponseBase, response: ResponseInit | null): void {
  const cookies = answer.headers.getAll('set-cookie');
  if (response === null || cookies === null) return;
  const headers = headersOf(response);
  for (const cookie of cookies) headers.append('Set-Cookie', cookie);
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
