import { HttpContextToken } from '@angular/common/http';

/**
 * How many times the token-refresh interceptor has repeated this request. Readable in later
 * interceptors, in tests (`httpTesting.expectOne(...).request.context.get(TOKEN_REFRESH_RETRY_COUNT)`)
 * and in logging. The interceptor sets it on each repeat (on a copy of the context, so a context
 * object shared by several requests is never changed). Default: `0` (an original request).
 *
 * @usageNotes
 * ```ts
 * const isRepeat = request.context.get(TOKEN_REFRESH_RETRY_COUNT) > 0;
 * ```
 */
export const TOKEN_REFRESH_RETRY_COUNT = new HttpContextToken<number>(() => 0);
