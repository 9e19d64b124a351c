import type { FastifyRequest } from 'fastify';

import { BEARER_CHALLENGES, readBearerToken } from '#contract';

import type { AccessTokenClaims, AccessTokens } from './access-tokens.js';
import { HttpError } from './http-error.js';

/**
 * Checks the access token of an API call and returns its claims, or throws the 401 to send, with
 * the uniform body and `WWW-Authenticate` (RFC 6750 §3): `Bearer` alone when there was no token
 * (`Unauthorized`), `Bearer error="invalid_token"` when it is malformed, forged, tampered, signed
 * with another algorithm or key (`InvalidToken`) or expired (`TokenExpired`).
 *
 * @example
 * const claims = authenticate(request, accessTokens);
 */
export function authenticate(request: FastifyRequest, accessTokens: AccessTokens): AccessTokenClaims {
  const token = readBearerToken(request.headers.authorization);
  if (token === null) {
    throw new HttpError(
      401,
      'Unauthorized',
      'Sign in first: this call needs an access token (Authorization: Bearer <token>).',
      {
        headers: { 'WWW-Authenticate': BEARER_CHALLENGES.missingToken },
      },
    );
  }
  if (token === '') throw invalidToken('InvalidToken', 'The Authorization header must be "Bearer <access token>".');
  const check = accessTokens.verify(token);
  if (check.ok) return check.claims;
  throw check.problem === 'expired'
    ? invalidToken('TokenExpired', 'The access token has expired.')
    : invalidToken('InvalidToken', 'The access token is not valid.');
}

/**
 * Throws 403 `Forbidden` unless the account may manage users (role `admin`), with the challenge of the
 * scheme the token came with (`Bearer error="insufficient_scope"` unless told otherwise).
 *
 * @example
 * requireAdmin(claims);
 * requireAdmin(claims, DPOP_CHALLENGES.insufficientScope);
 */
export function requireAdmin(claims: AccessTokenClaims, challenge: string = BEARER_CHALLENGES.insufficientScope): void {
  if (claims.role === 'admin') return;
  throw new HttpError(
    403,
    'Forbidden',
    `Only an admin may change users; ${claims.sub} is signed in as a ${claims.role}.`,
    {
      headers: { 'WWW-Authenticate': challenge },
    },
  );
}

function invalidToken(code: string, message: string): HttpError {
  return new HttpError(401, code, message, { headers: { 'WWW-Authenticate': BEARER_CHALLENGES.invalidToken } });
}
