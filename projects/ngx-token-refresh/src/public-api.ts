/*
 * Public API of ngx-token-refresh.
 */

// Token refresh
export { createTokenRefreshInterceptor } from './lib/refresh/create-token-refresh-interceptor';
export type { TokenRefreshController } from './lib/refresh/create-token-refresh-interceptor';
export { injectTokenRefresh } from './lib/refresh/inject-token-refresh';
export { provideTokenRefresh } from './lib/refresh/provide-token-refresh';
export { SKIP_TOKEN_REFRESH } from './lib/refresh/skip-token-refresh';
export { TokenRefreshError } from './lib/refresh/token-refresh-error';
export type { TokenRefreshErrorCode } from './lib/refresh/token-refresh-error';
export type { TokenRefreshEvent } from './lib/refresh/token-refresh-event';
export { tokenRefreshInterceptor } from './lib/refresh/token-refresh-interceptor';
export type { TokenRefreshOptions } from './lib/refresh/token-refresh-options';
export type { TokenRefreshFeature, TokenRefreshFeatureKind } from './lib/refresh/token-refresh-feature';
export { TOKEN_REFRESH_RETRY_COUNT } from './lib/refresh/token-refresh-retry-count';
export type { TokenRefreshState } from './lib/refresh/token-refresh-state';
export { withCrossTabSync, withNoCrossTabSync } from './lib/refresh/with-cross-tab-sync';
export type { CrossTabSyncOptions } from './lib/refresh/with-cross-tab-sync';
export { withInterceptorOptions } from './lib/refresh/with-interceptor-options';
export { withProactiveRefresh } from './lib/refresh/with-proactive-refresh';
export type { ProactiveRefreshOptions } from './lib/refresh/with-proactive-refresh';
export type { InterceptorOptions } from './lib/refresh/with-interceptor-options';

// Service client: errors
export { ApiError } from './lib/errors/api-error';
export type { ApiErrorDetail } from './lib/errors/api-error';
export { getFieldErrors } from './lib/errors/get-field-errors';
export { parseApiError } from './lib/errors/parse-api-error';

// Service client: users API
export { provideUsersApi } from './lib/api/provide-users-api';
export type { UsersApiConfig } from './lib/api/provide-users-api';
export type { Created, NewUser, Page, Pagination, User } from './lib/api/user';
export { UsersService } from './lib/api/users-service';

// Service client: authentication
export { AuthClient } from './lib/auth/auth-client';
export type { AuthConfig, RefreshTokenStore } from './lib/auth/auth-config';
export { parseJwtClaims } from './lib/auth/parse-jwt-claims';
export type { JwtClaims } from './lib/auth/parse-jwt-claims';
export { provideAuth } from './lib/auth/provide-auth';
export { readAccessToken } from './lib/auth/read-access-token';
export { safeReturnUrl } from './lib/auth/safe-return-url';

// Internal (ɵ): for the library's own secondary entry points, which may import only this public API.
/**
 * Internal, not part of the public API: the resolved `provideAuth` configuration, for the library's
 * own secondary entry point `ngx-token-refresh/router`. It may change or go away in any release.
 */
export { AUTH_CONFIG as ɵAUTH_CONFIG } from './lib/auth/auth-config';
