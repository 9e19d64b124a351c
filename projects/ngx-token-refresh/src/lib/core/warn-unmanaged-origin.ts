import { HttpErrorResponse, type HttpEvent, type HttpRequest } from '@angular/common/http';
import { type Observable, tap } from 'rxjs';

import { warnRuntime } from '../internal/runtime-error';

/**
 * Dev mode: `sent` (the answer to `request`, whose URL may not carry a token), watched so that a 401
 * from it says once per origin why it did not start a refresh. A function of its own, not a method of
 * the gate: production builds drop it with the dev-mode branch that calls it. `warned` holds what
 * this application was warned about already.
 */
export function warnUnmanagedOrigin(
  sent: Observable<HttpEvent<unknown>>,
  request: HttpRequest<unknown>,
  refreshOnStatus: readonly number[],
  warned: Set<string>,
): Observable<HttpEvent<unknown>> {
  return sent.pipe(tap({ error: (error: unknown) => warnOnce(error, request, refreshOnStatus, warned) }));
}

function warnOnce(
  error: unknown,
  request: HttpRequest<unknown>,
  refreshOnStatus: readonly number[],
  warned: Set<string>,
): void {
  if (!(error instanceof HttpErrorResponse) || !refreshOnStatus.includes(error.status)) return;
  let origin: string;
  try {
    origin = new URL(request.url, 'https://application.invalid').origin;
  } catch {
    origin = request.url;
  }
  if (warned.has(origin)) return;
  warned.add(origin);
  warnRuntime(
    'UnmanagedOrigin',
    `a ${error.status} from ${request.url} did not start a refresh, because tokens may not ` +
      `go there. Add its origin to allowedOrigins if it should (https only, or http on localhost).`,
  );
}
