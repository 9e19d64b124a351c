import { HttpClient } from '@angular/common/http';
import { inject } from '@angular/core';
import type { TokenRefreshOptions } from 'ngx-token-refresh';

/** The options of the manual's first example, attaching the token like the other contenders. */
export const refreshOptions: TokenRefreshOptions = {
  refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }),
  extractToken: (response) => (response.body as { accessToken: string }).accessToken,
  attachToken: true,
};
