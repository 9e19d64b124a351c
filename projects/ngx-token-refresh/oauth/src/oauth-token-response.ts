import { ɵisUsableToken as isUsableToken } from 'ngx-token-refresh';

import { OAuthError } from './oauth-error';

/**
 * A token endpoint's successful answer (RFC 6749 §5.1), as the sign-in library received it: give it
 * to `OAuthSession.setTokens()`. `oauth4webapi`'s `processAuthorizationCodeResponse()` returns this
 * shape, as do most clients that expose the raw response.
 */
export interface OAuthTokenResponse {
  /** The access token. Required. */
  readonly access_token: string;
  /**
   * `Bearer` (any case; a missing one counts as `Bearer`), or `DPoP` with `withDPoP()`, which then
   * requires it (RFC 9449 §5: a client that asked for a bound token discards an unbound one).
   */
  readonly token_type?: string;
  /** Seconds the access token lives; numeric strings are read too (some servers send them). */
  readonly expires_in?: number | string;
  /** The refresh token; when a refresh answer carries none, the one sent stays valid (RFC 6749 §6). */
  readonly refresh_token?: string;
  /** The scopes granted, when they differ from those asked for. Not used here. */
  readonly scope?: string;
  /** The OpenID Connect ID token: the sign-in library's to check and use; not used here. */
  readonly id_token?: string;
}

/** A token response read and checked: what the session keeps of it. */
export interface OAuthTokens {
  readonly accessToken: string;
  /** `undefined` when the answer carried none. */
  readonly refreshToken: string | undefined;
  /** Seconds; `undefined` when missing or not a positive number. */
  readonly expiresIn: number | undefined;
}

/**
 * Reads a token response, or throws an {@link OAuthError} `invalid_response` that says what is wrong:
 * not an object, no usable `access_token` (missing, empty, not a string, or with spaces or control
 * characters, which a header cannot carry), a `token_type` other than `tokenType` (`'bearer'`, which a
 * missing one counts as, or `'dpop'`), or a `refresh_token` that is present but unusable (the server
 * rotated it, so the old one is spent: keeping the old one would only fail later). `status`: the HTTP
 * status, for the error.
 */
export function readTokenResponse(body: unknown, status: number, tokenType: 'bearer' | 'dpop'): OAuthTokens {
  const fail = (problem: string): never => {
    throw new OAuthError('invalid_response', status, problem);
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    fail('the token response is not a JSON object');
  }
  const response = body as Record<string, unknown>;
  const { access_token, token_type, expires_in, refresh_token } = response;
  if (!isUsableToken(access_token)) fail('the token response has no usable access_token');
  const type = token_type === undefined ? 'bearer' : typeof token_type === 'string' ? token_type.toLowerCase() : null;
  if (type !== tokenType) {
    fail(
      tokenType === 'dpop'
        ? `token_type ${JSON.stringify(token_type)} is not DPoP: with withDPoP(), tokens not bound to the key are refused`
        : `token_type ${JSON.stringify(token_type)} is not supported; only Bearer tokens are (DPoP tokens need withDPoP())`,
    );
  }
  if (refresh_token !== undefined && !isUsableToken(refresh_token)) {
    fail('the token response has a refresh_token that is not a usable token');
  }
  const seconds = typeof expires_in === 'string' && /^\d+$/.test(expires_in) ? Number(expires_in) : expires_in;
  return {
    accessToken: access_token as string,
    refreshToken: refresh_token as string | undefined,
    expiresIn: typeof seconds === 'number' && seconds > 0 && seconds < Infinity ? seconds : undefined,
  };
}
