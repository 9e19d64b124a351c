import type { HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';

import { LabDPoP } from './lab-dpop';

/**
 * Shows the auth lab each DPoP proof the library signed. It sits after the token-refresh interceptor,
 * which signs each attempt (a repeat after a nonce challenge or a refresh gets a new proof), so it
 * sees the request as it leaves.
 */
export const labDPoPRecorder: HttpInterceptorFn = (request, next) => {
  inject(LabDPoP).record(request);
  return next(request);
};
