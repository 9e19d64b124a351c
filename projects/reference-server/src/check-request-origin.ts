import type { FastifyRequest } from 'fastify';

import { HttpError } from './http-error.js';

/**
 * Refuses, with 403 `ForbiddenOrigin`, a browser request from a page of another origin: defence in
 * depth for the endpoints the refresh cookie authorizes (`/auth/refresh`, `/auth/logout`), next to
 * `SameSite=Strict`. Runs before anything else of the route, so a refused request touches no token
 * and no cookie.
 *
 * - `Sec-Fetch-Site: cross-site` is refused outright (the browser says another site made it).
 * - Otherwise an `Origin` header must be the server's own origin (scheme and `Host`, as a trusted
 *   proxy reports them) or one of `allowedOrigins` (CORS_ORIGINS). `Origin: null` (sandboxed pages,
 *   privacy redirects) is refused.
 * - No `Origin` at all is allowed: browsers send one with every cross-origin request and with every
 *   `POST`, so its absence means a client that is not a browser page (a native app's body flow,
 *   curl, a server), which no cookie of a victim's browser comes with.
 *
 * @example
 * app.post('/auth/refresh', { onRequest: checkRequestOrigin(config.corsOrigins) }, handler);
 */
export function checkRequestOrigin(allowedOrigins: readonly string[]): (request: FastifyRequest) => Promise<void> {
  const allowed = new Set(allowedOrigins);
  return async (request) => {
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site') throw forbidden();
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (allowed.has(origin)) return;
    if (origin.toLowerCase() === `${request.protocol}://${request.host}`.toLowerCase()) return;
    throw forbidden();
  };
}

function forbidden(): HttpError {
  return new HttpError(
    403,
    'ForbiddenOrigin',
    'This request came from a page of an origin this server does not trust; nothing was changed.',
  );
}
