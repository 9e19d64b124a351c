import { HttpErrorResponse, HttpHeaders, type HttpInterceptorFn, type HttpRequest } from '@angular/common/http';
import { catchError, throwError } from 'rxjs';

/**
 * Turns the error answers of angular-in-memory-web-api into real `HttpErrorResponse`s (status,
 * `error` = the body, headers, url, statusText). The mock fails its Observable with a plain
 * `{ status, body, headers, url, statusText }` object where a real backend fails with an
 * `HttpErrorResponse`, so interceptors that check `instanceof HttpErrorResponse` (the token-refresh
 * interceptor among them) would never see its 401s. Put it LAST in `withInterceptors`, next to the
 * backend, so every interceptor before it sees what a real server would produce. This adaptation
 * belongs to the showcase: the library must never learn about the mock.
 *
 * Anything else passes unchanged: an `HttpErrorResponse` already, or a thrown error (a bug, which
 * should keep its stack rather than pose as an HTTP failure).
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withInterceptors([tokenRefreshInterceptor, inMemoryErrorAdapter]));
 * ```
 */
export const inMemoryErrorAdapter: HttpInterceptorFn = (request, next) =>
  next(request).pipe(catchError((error: unknown) => throwError(() => toHttpErrorResponse(error, request))));

function toHttpErrorResponse(error: unknown, request: HttpRequest<unknown>): unknown {
  if (error instanceof HttpErrorResponse || typeof error !== 'object' || error === null || error instanceof Error) {
    return error;
  }
  const { status, body, headers, url, statusText } = error as Record<string, unknown>;
  if (typeof status !== 'number') return error;
  return new HttpErrorResponse({
    status,
    error: body ?? null,
    headers: headers instanceof HttpHeaders ? headers : new HttpHeaders(),
    url: typeof url === 'string' && url !== '' ? url : request.urlWithParams,
    statusText: typeof statusText === 'string' ? statusText : undefined,
  });
}
