import type { HttpRequest } from '@angular/common/http';
import type { ResponseOptions } from 'angular-in-memory-web-api';

import { BEARER_CHALLENGES, readBearerToken } from '#contract';

import { type DemoJwtClaims, verifyDemoJwt } from './demo-jwt';
import { errorResponse } from './demo-response';
import type { DemoServerState } from './demo-server-state';

/** The outcome of {@link authenticateRequest}: the token's claims, or the 401 to send. */
export type Authentication =
  { readonly ok: true; readonly claims: DemoJwtClaims } | { readonly ok: false; readonly response: ResponseOptions };

/**
 * Checks the access token of an API call (`Authorization: Bearer`, read from the REQUEST headers):
 * missing, malformed, wrong signature, expired, or revoked by `expireAccessTokensNow()` all give a
 * 401 with the uniform error body, so the token-refresh interceptor sees the status it reacts to.
 * Codes: `Unauthorized` (no token: `WWW-Authenticate: Bearer`, no error code, as RFC 6750 §3.1 asks),
 * `InvalidToken` (malformed or not signed by this backend) and `TokenExpired` (expired or revoked),
 * both with `WWW-Authenticate: Bearer error="invalid_token"`. The same as the reference server.
 *
 * @usageNotes
 * ```ts
 * const authentication = authenticateRequest(request, state, Date.now());
 * if (!authentication.ok) return authentication.response;
 * ```
 */
export function authenticateRequest(
  request: HttpRequest<unknown>,
  state: DemoServerState,
  nowMs: number,
): Authentication {
  const token = readBearerToken(request.headers.get('Authorization'));
  if (token === null) {
    return unauthorized(
      'Unauthorized',
      'Sign in first: this call needs an access token (Authorization: Bearer <token>).',
      BEARER_CHALLENGES.missingToken,
    );
  }
  if (token === '') return unauthorized('InvalidToken', 'The Authorization header must be "Bearer <access token>".');
  const check = verifyDemoJwt(token, Math.floor(nowMs / 1000));
  if (!check.ok) {
    switch (check.problem) {
      case 'malformed':
        return unauthorized('InvalidToken', 'The access token is malformed.');
      case 'signature':
        return unauthorized('InvalidToken', 'The access token was not signed by this server.');
      case 'expired':
        return unauthorized('TokenExpired', 'The access token has expired.');
    }
  }
  if (state.isRevokedSerial(Number(check.claims.jti))) {
    return unauthorized('TokenExpired', 'The access token has been expired by the server.');
  }
  return { ok: true, claims: check.claims };
}

function unauthorized(
  code: string,
  message: string,
  challenge: string = BEARER_CHALLENGES.invalidToken,
): Authentication {
  return { ok: false, response: errorResponse(401, code, message, { headers: { 'WWW-Authenticate': challenge } }) };
}
