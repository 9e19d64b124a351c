import type { Bff } from './bff';
import { createBffContext } from './bff-context';
import { BffError } from './bff-error';
import { type BffOptions, resolveBffOptions } from './bff-options';
import { createRefreshGate } from './create-refresh-gate';
import { jsonError } from './json-error';
import { proxyApiCall } from './proxy-api-call';
import { sessionInfo } from './session-info';
import { signIn } from './sign-in';
import { signInCallback } from './sign-in-callback';
import { signOut } from './sign-out';

/**
 * A backend-for-frontend: the app's own server signs the user in at an OpenID Provider (authorization
 * code flow with PKCE, as a confidential client), keeps the tokens in a session store, and calls the
 * APIs for the page with them; the browser holds only an HttpOnly session cookie, so no script on the
 * page can read a token, whatever runs there. The IETF's OAuth 2.0 for Browser-Based Applications
 * ranks this architecture first.
 *
 * Routes, under `basePath` (`/bff`):
 * - `GET /bff/login?returnUrl=/path`: to the provider's sign-in, and back to `returnUrl`; a sign-in
 *   that cannot start (the provider down) goes back to `returnUrl` with `?bffError=<code>`, and one
 *   whose `returnUrl` is off this site to `/`;
 * - `GET /bff/callback`: the provider's redirect URI (register `<baseUrl>/bff/callback`); a sign-in
 *   that fails there goes back to `returnUrl` with `?bffError=<code>` (both routes are navigations,
 *   not API calls);
 * - `GET /bff/session`: `{ user, expiresAt, idleExpiresAt }`, no token;
 * - `POST /bff/logout`: `{ endSessionUrl }`, the provider's end-session page;
 * - every path under an `apis` prefix: forwarded to its API with the access token.
 *
 * The last three need the header `x-csrf: 1` and this site's origin (see `provideBffSession` of
 * `ngx-token-refresh/client`, which sends it). Tokens are refreshed on the server, once per session
 * however many calls need it, across instances that share a store. Sessions end after `idleTimeout`
 * without use, after `absoluteTimeout` in any case, at sign-out, or when the provider refuses their
 * refresh token; a 401 `SessionEnded` says so, once.
 *
 * Throws `BffError` `InvalidOptions` for a mistake in `options`.
 *
 * @usageNotes
 * ```ts
 * import { createBff, createBffPostgresStore } from 'ngx-token-refresh/bff';
 *
 * const bff = createBff({
 *   issuer: 'https://login.example',
 *   clientId: 'shop',
 *   clientSecret: process.env.OIDC_CLIENT_SECRET,
 *   baseUrl: 'https://shop.example',
 *   apis: { '/api': 'https://api.shop.example/v1' },
 *   store: createBffPostgresStore({ pool }),
 * });
 * const response = await bff.handle(request); // null: not the BFF's
 * ```
 */
export function createBff(options: BffOptions): Bff {
  const context = createBffContext(resolveBffOptions(options));
  const gate = createRefreshGate(context);
  const { basePath, apis } = context.options;

  const route = (request: Request): Promise<Response> | null => {
    const { pathname } = new URL(request.url);
    if (pathname === basePath || pathname.startsWith(`${basePath}/`)) {
      switch (pathname.slice(basePath.length)) {
        case '/login':
          return only('GET', request) ?? signIn(context, request);
        case '/callback':
          return only('GET', request) ?? signInCallback(context, request);
        case '/session':
          return only('GET', request) ?? sessionInfo(context, request);
        case '/logout':
          return only('POST', request) ?? signOut(context, request);
        default:
          return Promise.resolve(jsonError(404, 'NotFound', `No route ${pathname} in the BFF.`));
      }
    }
    const api = apis.find(({ prefix }) => pathname === prefix || pathname.startsWith(`${prefix}/`));
    return api === undefined ? null : proxyApiCall(context, gate, request, api);
  };

  return {
    handle: async (request) => {
      try {
        return await route(request);
      } catch (error) {
        // The store's own failures are an answer (try again); anything else is a bug to surface.
        if (error instanceof BffError && (error.code === 'StoreUnavailable' || error.code === 'LockTimeout')) {
          context.options.onWarning(error.message);
          return jsonError(503, 'StoreUnavailable', 'The session store did not answer; try again.', {
            'retry-after': '1',
          });
        }
        throw error;
      }
    },
    close: async () => {
      await gate.close();
      await context.settled();
    },
  };
}

/** `null` when `request` has `method`, else a 405 answer. */
function only(method: 'GET' | 'POST', request: Request): Promise<Response> | null {
  if (request.method === method) return null;
  return Promise.resolve(jsonError(405, 'MethodNotAllowed', `Use ${method}.`, { allow: method }));
}
