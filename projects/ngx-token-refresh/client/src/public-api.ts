/*
 * Public API of ngx-token-refresh/client: the client of the service, that is its authentication
 * (`provideAuth`, `AuthClient`), its users API (`UsersService`) and its typed errors (`ApiError`).
 * It sets up the interceptor of the main entry point for you. Also the browser side of a backend for
 * frontend (`provideBffSession`), another session client, where the server holds the tokens.
 */

// Authentication
export { AuthClient } from './auth/auth-client';
export type { AuthConfig, AuthInterceptorOptions, RefreshTokenStore } from './auth/auth-config';
export { provideAuth } from './auth/provide-auth';
export { safeReturnUrl } from './auth/safe-return-url';

// Backend for frontend (the server holds the tokens)
export { bffSessionInterceptor } from './bff/bff-session-interceptor';
export type { BffSessionConfig } from './bff/bff-session-config';
export type { BffSessionRef, BffSessionStatus, BffUser } from './bff/bff-session-ref';
export { injectBffSession } from './bff/inject-bff-session';
export { provideBffSession } from './bff/provide-bff-session';

// Errors
export { ApiError } from './errors/api-error';
export type { ApiErrorDetail } from './errors/api-error';
export { getFieldErrors } from './errors/get-field-errors';
export { parseApiError } from './errors/parse-api-error';

// Users API
export { provideUsersApi } from './api/provide-users-api';
export type { UsersApiConfig } from './api/provide-users-api';
export type { CreatedResource, NewUser, Page, Pagination, User } from './api/user';
export { UsersService } from './api/users-service';

// Internal (ɵ): for the library's own secondary entry points, which may import only public APIs.
/**
 * Internal, not part of the public API: the resolved `provideAuth` configuration, for the library's
 * own secondary entry point `ngx-token-refresh/router`. It may change or go away in any release.
 */
export { AUTH_CONFIG as ɵAUTH_CONFIG } from './auth/auth-config';
