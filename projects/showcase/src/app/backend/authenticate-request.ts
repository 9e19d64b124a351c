import type { HttpRequest } from '@angular/common/http';
import type { ResponseOptions } from 'angular-in-memory-web-api';

import { type DemoJwtClaims, verifyDemoJwt } from './demo-jwt';
import { errorResponse } from './demo-response';
import type { DemoServerState } from './demo-server-state';

/** The outcome of {@link authenticateRequest}: the token's claims, or the 401 to send. */
export type Authentication =
  { readonly ok: true; readonly claims: DemoJwtClaims } | { readonly ok: false; readonly response: ResponseOptions };

/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110), the token visible ASCII. */
const BEARER = /^Bearer +([\x21-\x7e]+)$/i;

/**
 * Checks the access token of an API call (`Authorization: Bearer`, read from the REQUEST headers):
 * missing, malformed, wrong signature, expired, or revoked by `expireAccessTokensNow()` all give a
 * 401 with the uniform error body and `WWW-Authenticate: Bearer error="invalid_token"`, so the
 * token-refresh interceptor sees the status it reacts to. Codes: `Unauthorized` (no token),
 * `InvalidToken` (malformed or not signed by this backend), `TokenExpired` (expired or revoked).
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
  const header = request.headers.get('Authorization');
  if (header === null || header.trim() === '') {
    return unauthorized(
      'Unauthorized',
      'Sign in first: this call needs an access token (Authorization: Bearer <token>).',
    );
  }
  const token = BEARER.exec(header.trim())?.[1];
  if (!token) return unauthorized('InvalidToken', 'The Authorization header must be "Bearer <access token>".');
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

function unauthorized(code: string, message: string): Authentication {
  // RFC 6750 §3: a resource server names the scheme and the reason it refused the token.
  return {
    ok: false,
    response: errorResponse(401, code, message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } }),
  };
}
