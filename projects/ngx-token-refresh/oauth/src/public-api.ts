/*
 * Public API of ngx-token-refresh/oauth: the token-refresh interceptor set up for a standard OAuth 2.0 /
 * OpenID Connect server (the refresh grant at its token endpoint), for apps that sign in with another
 * library.
 */

export { OAuthError } from './oauth-error';
export type { OAuthRefreshConfig, OAuthRefreshTokenStore } from './oauth-refresh-config';
export { OAuthSession } from './oauth-session';
export type { OAuthTokenResponse } from './oauth-token-response';
export { provideOAuthRefresh } from './provide-oauth-refresh';
