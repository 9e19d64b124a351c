import { type HttpInterceptorFn, provideHttpClient, withInterceptors } from '@angular/common/http';
import { inject } from '@angular/core';

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
