/**
 * The `WWW-Authenticate` values of both backends (RFC 6750 §3 and §3.1):
 * - `missingToken`, `Bearer`: the request carried no credentials, so the answer names the scheme
 *   and no error code (§3.1: "the resource server SHOULD NOT include an error code");
 * - `invalidToken`, `Bearer error="invalid_token"`: a token (or an `Authorization` header) that is
 *   malformed, forged, expired or revoked;
 * - `insufficientScope`, `Bearer error="insufficient_scope"`: a valid token whose account may not
 *   do this (403).
 *
 * @example
 * headers['WWW-Authenticate'] = BEARER_CHALLENGES.missingToken;
 */
export const BEARER_CHALLENGES = {
  missingToken: 'Bearer',
  invalidToken: 'Bearer error="invalid_token"',
  insufficientScope: 'Bearer error="insufficient_scope"',
} as const;
