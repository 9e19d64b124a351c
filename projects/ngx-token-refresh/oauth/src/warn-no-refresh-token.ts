import { ɵwarnRuntime as warnRuntime } from 'ngx-token-refresh';

import type { OAuthTokens } from './oauth-token-response';

/**
 * Dev mode: a sign-in's token response without a `refresh_token` is accepted (some apps want only the
 * access token), but it is mostly a sign-in that forgot to ask for one, which shows only at the
 * first expiry. The answer of a refresh is not checked here: one without a `refresh_token` keeps the
 * one sent (RFC 6749 §6).
 */
export function warnNoRefreshToken(tokens: OAuthTokens): void {
  if (tokens.refreshToken !== undefined) return;
  const expiry = tokens.expiresIn === undefined ? 'expires' : `expires (in ${tokens.expiresIn} s)`;
  warnRuntime(
    'NoRefreshToken',
    `OAuthSession.setTokens() got a token response without refresh_token: nothing can renew the session, so it ends when the access token ${expiry}, and restore() (a reload, a new tab) finds no session and returns false. To get one, ask for the offline_access scope with prompt=consent in the authorization request (OpenID Connect Core §11; oidc-provider, among others, drops offline_access without it), or turn on refresh tokens for this client in your provider's settings`,
  );
}
