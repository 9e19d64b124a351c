import { HttpErrorResponse } from '@angular/common/http';

import { TokenRefreshError } from 'ngx-token-refresh';

/**
 * Whether a failed request leaves the refresh token's fate unknown, as opposed to the server refusing
 * it: no answer (status 0), 408, 429, a 5xx, or the refresh's `Timeout`. The session is kept then.
 */
export function isPassingFailure(error: unknown): boolean {
  if (error instanceof HttpErrorResponse) {
    const status = error.status;
    return status === 0 || status === 408 || status === 429 || status >= 500;
  }
  return error instanceof TokenRefreshError && error.code === 'Timeout';
}
