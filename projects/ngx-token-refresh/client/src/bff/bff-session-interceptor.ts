import { HttpErrorResponse, type HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';
import { ɵRuntimeError as RuntimeError } from 'ngx-token-refresh';
import { tap } from 'rxjs';

import { BffSessionState } from './bff-session-state';

/**
 * The interceptor of an application whose backend for frontend holds the tokens (set up with
 * {@link provideBffSession}). For requests to this site under `basePath` or `apiPaths` (a path such
 * as `/api/users`, or an absolute URL of this very origin), and no others:
 *
 * - it adds `x-csrf: 1`, which the BFF requires of every call (a page of another site cannot send
 *   it without a preflight the BFF never grants); a request to another origin never gets it;
 * - a 401 with code `SessionEnded` or `NoSession` ends the session: `user` is cleared, and in a
 *   signed-in tab the first such answer tells the other tabs and runs `onSessionExpired`, once
 *   however many calls fail. Every caller still gets its own error, untouched; any other 401 (the
 *   API's own) passes through without touching the session;
 * - in a server render, it sends the rendered request's session cookie (`__Host-bff-session`, no
 *   other cookie) with them, over https or to a loopback host only, and to `serverUrl` when set.
 *
 * @usageNotes
 * ```ts
 * provideHttpClient(withFetch(), withInterceptors([bffSessionInterceptor]));
 * ```
 *
 * @throws `MissingProvider` when the application has no `provideBffSession()`.
 */
export const bffSessionInterceptor: HttpInterceptorFn = (request, next) => {
  const state = inject(BffSessionState, { optional: true });
  if (state === null) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        'bffSessionInterceptor needs provideBffSession() in the application providers',
    );
  }
  if (typeof ngDevMode !== 'undefined' && ngDevMode) state.intercepted = true;
  const path = state.bffPath(request.url);
  if (path === null) return next(request);
  const sent = state.browser
    ? request.clone({ headers: request.headers.set('x-csrf', '1') })
    : state.forServer(request, path);
  return next(sent).pipe(
    tap({
      error: (error: unknown) => {
        if (error instanceof HttpErrorResponse && error.status === 401) state.refused(error);
      },
    }),
  );
};
