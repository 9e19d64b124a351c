import type { HttpInterceptorFn } from '@angular/common/http';

import { demoLatencyInterceptor } from './demo-latency-interceptor';
import { inMemoryErrorAdapter } from './in-memory-error-adapter';

/**
 * The interceptors the demo backend needs, to append AFTER `tokenRefreshInterceptor` (so the
 * requests it repeats go through them too): the artificial latency, then the adapter that turns the
 * mock's error answers into `HttpErrorResponse`s, which must stay last, next to the backend.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([tokenRefreshInterceptor, ...demoBackendInterceptors]));
 * ```
 */
export const demoBackendInterceptors: readonly HttpInterceptorFn[] = [demoLatencyInterceptor, inMemoryErrorAdapter];
