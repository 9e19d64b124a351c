/*
 * Public API of ngx-token-refresh.
 */
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
export { TOKEN_REFRESH_RETRY_COUNT } from './lib/refresh/token-refresh-retry-count';
export type { TokenRefreshState } from './lib/refresh/token-refresh-state';
