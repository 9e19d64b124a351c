/*
 * Public API of ngx-token-refresh: the token-refresh interceptor and its features. The client of the
 * service (auth, users API, errors) is `ngx-token-refresh/client`.
 */

// Token refresh
export { injectTokenRefresh } from './lib/core/inject-token-refresh';
export { provideTokenRefresh } from './lib/core/provide-token-refresh';
export { SKIP_TOKEN_REFRESH } from './lib/core/skip-token-refresh';
export { TokenRefreshError } from './lib/core/token-refresh-error';
export type { TokenRefreshErrorCode } from './lib/core/token-refresh-error';
export type { TokenRefreshEvent } from './lib/core/token-refresh-event';
export { tokenRefreshInterceptor } from './lib/core/token-refresh-interceptor';
export type { TokenRefreshOptions } from './lib/core/token-refresh-options';
export type { TokenRefreshFeature, TokenRefreshFeatureKind } from './lib/core/token-refresh-feature';
export { TOKEN_REFRESH_RETRY_COUNT } from './lib/core/token-refresh-retry-count';
export type { TokenRefreshRef } from './lib/core/token-refresh-ref';
export { withCrossTabSync, withNoCrossTabSync } from './lib/cross-tab/with-cross-tab-sync';
export type { CrossTabSyncOptions } from './lib/cross-tab/with-cross-tab-sync';
export { withProactiveRefresh } from './lib/proactive/with-proactive-refresh';
export type { ProactiveRefreshOptions } from './lib/proactive/with-proactive-refresh';
export { withServerSession } from './lib/server-session/with-server-session';
export type { ServerSessionOptions } from './lib/server-session/with-server-session';

// Idle timeout
export { injectIdleTimeout } from './lib/idle/inject-idle-timeout';
export type { IdleState, IdleTimeoutRef } from './lib/idle/idle-timeout-ref';
export { withIdleTimeout } from './lib/idle/with-idle-timeout';
export type { IdleTimeoutOptions } from './lib/idle/with-idle-timeout';

// DPoP
export { DPOP_PROOF } from './lib/dpop/dpop-proof';
export { injectDPoPKeyPair } from './lib/dpop/inject-dpop-key-pair';
export { withDPoP } from './lib/dpop/with-dpop';
export type { DPoPOptions } from './lib/dpop/with-dpop';

// JWT
export { parseJwtClaims } from './lib/jwt/parse-jwt-claims';
export type { JwtClaims } from './lib/jwt/parse-jwt-claims';

// Internal (ɵ): for the library's own secondary entry points, which may import only this public API.
// Not part of the public API: they may change or go away in any release.
export { injectCallbackRunner as ɵinjectCallbackRunner } from './lib/internal/inject-callback-runner';
export { isSameOriginPath as ɵisSameOriginPath } from './lib/internal/is-same-origin-path';
export { isSecureEndpoint as ɵisSecureEndpoint } from './lib/internal/is-secure-endpoint';
export { isUsableToken as ɵisUsableToken } from './lib/internal/is-usable-token';
export { RuntimeError as ɵRuntimeError, warnRuntime as ɵwarnRuntime } from './lib/internal/runtime-error';
export { injectTokenWriter as ɵinjectTokenWriter } from './lib/core/inject-token-writer';
export { provideTokenRefreshPreset as ɵprovideTokenRefreshPreset } from './lib/internal/provide-token-refresh-preset';
export { DPOP_KEYS as ɵDPOP_KEYS } from './lib/dpop/dpop-keys';
