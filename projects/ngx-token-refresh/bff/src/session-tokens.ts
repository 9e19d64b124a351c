import type { TokenEndpointResponse } from 'oauth4webapi';

import type { BffSession } from './bff-session';

/** The fields of a session record that a token response writes. */
export type SessionTokens = Pick<
  BffSession,
  'accessToken' | 'accessTokenIssuedAt' | 'accessTokenExpiresAt' | 'refreshToken' | 'idToken' | 'tokenType'
>;

/**
 * The session's tokens from a token response received at `now`. An answer without a new refresh token
 * or ID token keeps the ones of `previous` (RFC 6749, section 6: the refresh token stays valid then).
 * An access token without `expires_in` counts as living as long as the session: only a 401 of an API
 * will then tell that it has expired.
 */
export function sessionTokens(
  response: TokenEndpointResponse,
  now: number,
  absoluteTimeout: number,
  previous: BffSession | null,
): SessionTokens {
  return {
    accessToken: response.access_token,
    accessTokenIssuedAt: now,
    accessTokenExpiresAt: now + (response.expires_in === undefined ? absoluteTimeout : response.expires_in * 1000),
    refreshToken: response.refresh_token ?? previous?.refreshToken ?? null,
    idToken: response.id_token ?? previous?.idToken ?? null,
    // oauth4webapi has lowercased it, and accepts only these two.
    tokenType: response.token_type === 'dpop' ? 'DPoP' : 'Bearer',
  };
}
