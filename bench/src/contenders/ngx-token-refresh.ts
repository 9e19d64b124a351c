import { HttpClient, type HttpResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { inject } from '@angular/core';

import { REFRESH_URL } from './urls';
import { lib } from '../harness/library';
import type { Contender } from './contender';

const options = {
  refreshApiCall: () => inject(HttpClient).post(REFRESH_URL, null, { observe: 'response' }),
  extractToken: (response: HttpResponse<unknown>) => (response.body as { accessToken: string }).accessToken,
  // Attach the token itself, like every other contender here.
  attachToken: true,
};

/** The controller form, created once in module scope as the manual shows. */
const tokenRefresh = lib.createTokenRefreshInterceptor(options);

export const ngxTokenRefresh: Contender = {
  id: 'ngx-token-refresh',
  label: 'ngx-token-refresh',
  refreshes: true,
  providers: () => [provideHttpClient(withInterceptors([tokenRefresh.interceptor]))],
  login: (injector, token) => lib.injectTokenRefresh({ controller: tokenRefresh, injector }).setToken(token),
};

/** The provider form: `provideTokenRefresh(...)` and `tokenRefreshInterceptor`. */
export const ngxTokenRefreshProvider: Contender = {
  id: 'ngx-token-refresh-provider',
  label: 'ngx-token-refresh (provider form)',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
    lib.provideTokenRefresh(options),
  ],
  login: (injector, token) => lib.injectTokenRefresh({ injector }).setToken(token),
};

/**
 * The showcase's wiring: `provideAuth` (the service client sets up the interceptor, with
 * `attachToken`, refresh through `POST /auth/refresh`, the session store) and `tokenRefreshInterceptor`.
 */
export const ngxTokenRefreshShowcase: Contender = {
  id: 'ngx-token-refresh-showcase',
  label: 'ngx-token-refresh (showcase wiring: provideAuth)',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
    lib.provideAuth({ baseUrl: '/auth' }),
  ],
  // What AuthClient.login does with the token of a successful login.
  login: (injector, token) => lib.injectTokenRefresh({ injector }).setToken(token),
};
