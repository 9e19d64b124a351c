import { HttpErrorResponse, type HttpInterceptorFn, HttpResponse } from '@angular/common/http';
import { inject } from '@angular/core';
import { TOKEN_REFRESH_RETRY_COUNT } from 'ngx-token-refresh';
import { tap } from 'rxjs';

import { LAB_CALL } from './lab-call';
import { LabLog } from './lab-log';

/**
 * Records each attempt of an auth-lab call on its timeline. It sits after the token-refresh
 * interceptor, so it sees every attempt: the original ("sent") and each repeat ("repeated"), which
 * the library marks with TOKEN_REFRESH_RETRY_COUNT.
 */
export const labCallTracker: HttpInterceptorFn = (request, next) => {
  const id = request.context.get(LAB_CALL);
  if (id === 0) return next(request);
  const log = inject(LabLog);
  log.step(id, request.context.get(TOKEN_REFRESH_RETRY_COUNT) > 0 ? 'repeated' : 'sent');
  return next(request).pipe(
    tap({
      next: (event) => {
        if (event instanceof HttpResponse) log.step(id, event.status === 200 ? '200' : 'error', event.status);
      },
      error: (error: unknown) => {
        const status = error instanceof HttpErrorResponse ? error.status : 0;
        log.step(id, status === 401 ? '401' : 'error', status);
      },
    }),
  );
};
