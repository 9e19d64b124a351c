import type { FastifyInstance } from 'fastify';

import type { AccessTokens } from './access-tokens.js';
import { ANY_OPERATION_ERRORS, errorResponses } from './api-schemas.js';
import { authenticate } from './authenticate.js';
import type { DpopAuthenticate } from './authenticate-dpop.js';

/** How many tokens the lab can have expired ahead of time at once (oldest forgotten first). */
const EXPIRED_EARLY_KEPT = 1000;

const EXPIRE_SCHEMA = {
  tags: ['lab'],
  operationId: 'expireAccessToken',
  summary: 'Development only: expire the presented access token now',
  description:
    'Only with DEV_LAB_ROUTES=true (`npm run start:real` and the browser tests set it). From now on the ' +
    'presented access token is refused as expired (401 `TokenExpired`), ahead of its `exp`, so the auth ' +
    'lab can show the refresh at once.',
  security: [{ bearerAuth: [] }],
  response: {
    204: { description: 'The token counts as expired from now on.', type: 'null' },
    ...errorResponses(401, ...ANY_OPERATION_ERRORS),
  },
} as const;

/**
 * Development only (`DEV_LAB_ROUTES=true`): `POST /auth/lab/expire-access-token`, the auth lab's
 * "Expire access token now" against this server. Returns the access tokens to use everywhere else:
 * the same, except that a token expired by the lab is refused as expired (`TokenExpired`, as when its
 * time runs out). Without the flag, nothing of this is registered (see build-server.ts). With DPoP on,
 * `dpopAuthenticate` makes the check of the route's own credentials from the returned tokens, so the
 * route takes what the API takes.
 *
 * @example
 * const tokens = config.devLabRoutes ? registerLabRoutes(app, accessTokens) : accessTokens;
 */
export function registerLabRoutes(
  app: FastifyInstance,
  accessTokens: AccessTokens,
  dpopAuthenticate: ((tokens: AccessTokens) => DpopAuthenticate) | null = null,
): AccessTokens {
  // By the token's jti: a token issued after the lab's click, even within the same second, is fine.
  const expiredEarly = new Set<string>();
  const tokens: AccessTokens = {
    issue: (subject) => accessTokens.issue(subject),
    verify(token, options) {
      const check = accessTokens.verify(token, options);
      if (check.ok && !options?.allowExpired && expiredEarly.has(check.claims.jti)) {
        return { ok: false, problem: 'expired' };
      }
      return check;
    },
  };
  const dpopCheck = dpopAuthenticate?.(tokens) ?? null;
  app.post('/auth/lab/expire-access-token', { schema: EXPIRE_SCHEMA }, async (request, reply) => {
    const { jti } = dpopCheck ? (await dpopCheck(request, reply)).claims : authenticate(request, tokens);
    if (expiredEarly.size >= EXPIRED_EARLY_KEPT) expiredEarly.delete(expiredEarly.values().next().value as string);
    expiredEarly.add(jti);
    request.log.info({ jti }, 'lab: access token expired ahead of time');
    return reply.code(204).send();
  });
  return tokens;
}
