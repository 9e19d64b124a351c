import type { HttpInterceptorFn } from '@angular/common/http';
import { inject, untracked } from '@angular/core';
import { switchMap, timer } from 'rxjs';

import { DemoServerState } from './demo-server-state';

/**
 * Holds every request for `DemoServerState.latencyMs()` milliseconds (read when the request is sent;
 * 0 = none) before it reaches the in-memory backend, so the refresh queue and loading states have
 * time to be seen. Unsubscribing during the wait cancels the request before the backend sees it,
 * as an aborted request would be. Part of {@link demoBackendInterceptors}; the in-memory backend's
 * own `delay` stays 0, as it cannot be changed while the app runs.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([tokenRefreshInterceptor, demoLatencyInterceptor, inMemoryErrorAdapter]));
 * ```
 */
export const demoLatencyInterceptor: HttpInterceptorFn = (request, next) => {
  // untracked: a request made inside an effect must not make the effect depend on the latency.
  const latency = untracked(inject(DemoServerState).latencyMs);
  return Number.isFinite(latency) && latency > 0 ? timer(latency).pipe(switchMap(() => next(request))) : next(request);
};
