import { DPOP_ALGORITHM } from './dpop-proofs.js';

/** The OpenAPI security scheme of DPoP-bound access tokens (`components.securitySchemes.dpopAuth`). */
export const DPOP_SECURITY_SCHEME = {
  type: 'http',
  scheme: 'DPoP',
  description:
    'A DPoP-bound access token (RFC 9449), `Authorization: DPoP <token>`, sent with a `DPoP` proof of the key it ' +
    'is bound to (`cnf.jkt`), made for this request (`htm`, `htu`, `ath`) with the server’s current nonce.',
} as const;

/** The token requests: a proof without `ath` (login, refresh), or one of the token's key (logout). */
const TOKEN_REQUESTS = new Set(['/auth/login', '/auth/refresh', '/auth/logout']);

const NONCE_HEADER = {
  type: 'string',
  description:
    'DPoP: the nonce to put in the next proofs (RFC 9449 §8, §9); on every DPoP refusal, and on any answer to a ' +
    'proof that did not carry the current one. Nonces change every minute and are accepted for 2 to 3 minutes.',
} as const;

/** A route's schema, as far as this file reads and writes it. */
interface RouteSchema {
  readonly hide?: boolean;
  readonly security?: readonly Record<string, readonly string[]>[];
  readonly response?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly [key: string]: unknown;
}

/**
 * A route's schema for the document with DPOP=allowed or required (DPOP=off leaves the document as it
 * is): `dpopAuth` next to `bearerAuth` (DPOP=allowed) or in its place (required), the `DPoP` request
 * header, `DPoP-Nonce` on every answer, and the DPoP error codes in the 400s of the token requests and
 * the 401s of the API. Documentation only: the route's own schema, which Fastify validates with, is
 * not changed (a `headers` schema there would have Ajv check every request's headers).
 *
 * @example
 * transform: ({ schema, url }) => ({ schema: describeDpop(schema, url, 'required'), url })
 */
export function describeDpop<T>(schema: T, url: string, mode: 'allowed' | 'required'): T {
  const route = schema as RouteSchema | undefined;
  if (!route || route.hide) return schema;
  const tokenRequest = TOKEN_REQUESTS.has(url);
  const security = route.security?.flatMap((requirement) => {
    if (!('bearerAuth' in requirement)) return [requirement];
    return mode === 'allowed' ? [requirement, { dpopAuth: [] }] : [{ dpopAuth: [] }];
  });
  const proofDescription = tokenRequest
    ? url === '/auth/logout'
      ? 'DPoP: with `Authorization: DPoP <token>`, a proof of the token’s key (with `ath`), so that the token ' +
        'names the session to end; a bound token without it names none. A refresh token (cookie or body) ' +
        'ends a session bound to a key only with a proof of that key (without `ath` when no DPoP token comes).'
      : `DPoP: a proof (RFC 9449) without \`ath\`: \`typ\` \`dpop+jwt\`, \`alg\` \`${DPOP_ALGORITHM}\`, a public P-256 ` +
        '`jwk`, `jti`, `htm`, `htu`, `iat` and the server’s `nonce`. ' +
        (mode === 'required' ? 'Required. ' : 'Optional (DPOP=allowed); ') +
        (url === '/auth/login'
          ? 'The session is bound to its key: its refreshes must prove the same key.'
          : 'It must prove the key the session is bound to; the new access token is bound to it.')
    : 'DPoP: with `Authorization: DPoP <token>`, the proof of the key the token is bound to, made for this ' +
      'request: `htm`, `htu` (scheme, host and path as sent, no query), `ath` (SHA-256 of the token), the server’s `nonce`.';
  const response = Object.fromEntries(
    Object.entries(route.response ?? {}).map(([status, answer]) => {
      const headers = { ...(answer['headers'] as object | undefined), 'DPoP-Nonce': NONCE_HEADER };
      if (status === '401' || status === '403') {
        Object.assign(headers, {
          'WWW-Authenticate': {
            type: 'string',
            description:
              'The challenge: `DPoP error="…", algs="ES256"` (RFC 9449) for a DPoP or bound token, `Bearer ' +
              'error="…"` (RFC 6750) for a Bearer one, `Bearer, DPoP algs="ES256"` (DPOP=allowed) or ' +
              '`DPoP algs="ES256"` (DPOP=required) without credentials.',
          },
        });
      }
      const description = String(answer['description'] ?? '');
      const extra =
        status === '400' && tokenRequest
          ? ' DPoP: `invalid_dpop_proof` (a missing, wrong or replayed proof) or `use_dpop_nonce` (make a new ' +
            'proof with the `DPoP-Nonce` of this answer and send again), both with `DPoP-Nonce`; nothing of the ' +
            'session was touched.'
          : status === '401' && !tokenRequest
            ? ' DPoP: `invalid_dpop_proof` (a missing, wrong or replayed proof) or `use_dpop_nonce` (send again ' +
              'with the `DPoP-Nonce` of this answer), each also in `WWW-Authenticate: DPoP error="…"`; ' +
              '`InvalidToken` for a bound token sent as Bearer or with another key’s proof.'
            : status === '401' && url === '/auth/refresh'
              ? ' DPoP: also when the session is bound to another key than the proof’s, or the proof is missing ' +
                '(nothing rotated, the cookie kept).'
              : status === '401' && url === '/auth/logout'
                ? ' DPoP: `InvalidRefreshToken` when a refresh token names a session bound to another key than ' +
                  'the proof’s, or the proof is missing (nothing ended, the cookie kept).'
                : '';
      return [status, { ...answer, description: description + extra, headers }];
    }),
  );
  return {
    ...route,
    ...(security ? { security } : {}),
    headers: {
      type: 'object',
      properties: { DPoP: { type: 'string', description: proofDescription } },
      ...(mode === 'required' && url !== '/auth/logout' ? { required: ['DPoP'] } : {}),
    },
    response,
  } as T;
}
