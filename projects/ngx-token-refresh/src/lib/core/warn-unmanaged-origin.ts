import { HttpErrorResponse, type HttpRequest } from '@angular/common/http';

import { warnRuntime } from '../internal/runtime-error';

/**
 * Dev mode: says once per origin why a 401 from it did not start a refresh (tokens may not go there).
 * A function of its own, not a method of the gate: production builds drop it with the dev-mode
 * branch that calls it. `warned` holds what this application was warned about already.
 */
export function warnUnmanagedOrigin(
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
