import { HttpClient, type HttpResponse, provideHttpClient, withInterceptors } from '@angular/common/http';
import { DOCUMENT, PLATFORM_ID, inject } from '@angular/core';

import { REFRESH_URL } from './urls';
import { client, lib } from '../harness/library';
import { browserDocument } from '../harness/virtual-time';
import type { Contender } from './contender';

const options = {
  refreshApiCall: () => inject(HttpClient).post(REFRESH_URL, null, { observe: 'response' }),
  extractToken: (response: HttpResponse<unknown>) => (response.body as { accessToken: string }).accessToken,
  // Attach the token itself, like every other contender here.
  attachToken: true,
};

/** The interceptor in its one form: `provideTokenRefresh(options)` and `tokenRefreshInterceptor`. */
export const ngxTokenRefresh: Contender = {
  id: 'ngx-token-refresh',
  label: 'ngx-token-refresh',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
    lib.provideTokenRefresh(options),
  ],
  login: (injector, token) => lib.injectTokenRefresh({ injector }).setToken(token),
};

/**
 * The showcase's wiring: `provideAuth` of `ngx-token-refresh/client` (the service client sets up the
 * interceptor, with `attachToken`, refresh through `POST /auth/refresh`, the session store) and
 * `tokenRefreshInterceptor`. The bench runs one application and no tabs, so it passes
 * `withNoCrossTabSync()`, as an app that chose no cross-tab sync does (and so that `provideAuth`'s
 * dev-mode warning for the cookie flow, were dev mode on, would not fire).
 */
export const ngxTokenRefreshShowcase: Contender = {
  id: 'ngx-token-refresh-showcase',
  label: 'ngx-token-refresh (showcase wiring: provideAuth)',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
    client.provideAuth({ baseUrl: '/auth' }, lib.withNoCrossTabSync()),
  ],
  // What AuthClient.login does with the token of a successful login.
  login: (injector, token) => lib.injectTokenRefresh({ injector }).setToken(token),
};

/**
 * The showcase's wiring with proactive refresh: `provideAuth(config, withProactiveRefresh())`, in an
 * app that runs as a browser page (`PLATFORM_ID` 'browser', a visible document with event listeners),
 * since the feature stays off on any other platform. Its timers need a clock: it is only measured in
 * the round-trip simulation, which runs it on a virtual one. No tabs here either: `withNoCrossTabSync()`.
 */
export const ngxTokenRefreshProactive: Contender = {
  id: 'ngx-token-refresh-proactive',
  label: 'ngx-token-refresh (provideAuth + withProactiveRefresh())',
  refreshes: true,
  providers: () => [
    { provide: PLATFORM_ID, useValue: 'browser' },
    { provide: DOCUMENT, useValue: browserDocument() },
    provideHttpClient(withInterceptors([lib.tokenRefreshInterceptor])),
    client.provideAuth({ baseUrl: '/auth' }, lib.withNoCrossTabSync(), lib.withProactiveRefresh()),
  ],
  login: (injector, token) => lib.injectTokenRefresh({ injector }).setToken(token),
};
