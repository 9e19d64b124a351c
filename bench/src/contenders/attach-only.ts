import { type HttpInterceptorFn, provideHttpClient, withInterceptors } from '@angular/common/http';
import { inject } from '@angular/core';
import { catchError, throwError } from 'rxjs';

import type { Contender } from './contender';
import { Session } from './session';

/** The least any token interceptor does: read the token and write it into a copy of the request. */
export const attachOnlyInterceptor: HttpInterceptorFn = (request, next) => {
  const token = inject(Session).token;
  return next(token === null ? request : request.clone({ setHeaders: { Authorization: `Bearer ${token}` } }));
};

export const attachOnly: Contender = {
  id: 'attach-only',
  label: 'attach-only (functional)',
  refreshes: false,
  providers: () => [provideHttpClient(withInterceptors([attachOnlyInterceptor]))],
  login: (injector, token) => void (injector.get(Session).token = token),
};

/**
 * attach-only plus the least a refreshing interceptor must add: a subscriber on the response that
 * sees its errors (here it passes them on). The floor for any interceptor that refreshes on 401.
 */
export const attachCatchInterceptor: HttpInterceptorFn = (request, next) =>
  attachOnlyInterceptor(request, next).pipe(catchError((error: unknown) => throwError(() => error)));

export const attachCatch: Contender = {
  id: 'attach-catch',
  label: 'attach-only + catchError (reference)',
  refreshes: false,
  providers: () => [provideHttpClient(withInterceptors([attachCatchInterceptor]))],
  login: (injector, token) => void (injector.get(Session).token = token),
};
