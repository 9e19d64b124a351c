/*
 * Public API of ngx-token-refresh.
 */
export { createTokenRefreshInterceptor } from './lib/create-token-refresh-interceptor';
export type { TokenRefreshController } from './lib/create-token-refresh-interceptor';
export { injectTokenRefresh } from './lib/inject-token-refresh';
export { provideTokenRefresh } from './lib/provide-token-refresh';
export { SKIP_TOKEN_REFRESH } from './lib/skip-token-refresh';
export { TokenRefreshError } from './lib/token-refresh-error';
export type { TokenRefreshErrorCode } from './lib/token-refresh-error';
export type { TokenRefreshEvent } from './lib/token-refresh-event';
export { tokenRefreshInterceptor } from './lib/token-refresh-interceptor';
export type { TokenRefreshOptions } from './lib/token-refresh-options';
export { TOKEN_REFRESH_RETRY_COUNT } from './lib/token-refresh-retry-count';
export type { TokenRefreshState } from './lib/token-refresh-state';
