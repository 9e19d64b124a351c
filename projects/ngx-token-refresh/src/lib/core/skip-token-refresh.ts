import { HttpContextToken } from '@angular/common/http';

/**
 * Per-request switch: when `true`, the token-refresh interceptor passes the request and its response
 * through untouched (no token written, no refresh on 401). Use it for login, logout or third-party
 * calls. Default: `false`.
 *
 * @usageNotes
 * ```ts
 * http.post('/auth/login', credentials, {
 *   context: new HttpContext().set(SKIP_TOKEN_REFRESH, true),
 * });
 * ```
 */
export const SKIP_TOKEN_REFRESH = new HttpContextToken<boolean>(() => false);
