import { HttpClient, type HttpInterceptorFn, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { EnvironmentInjector, inject } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  type TokenRefreshOptions,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
} from 'ngx-token-refresh';

// Shared by the interceptor's specs (not part of the library build: see tsconfig.lib.json).

/** Options for `HttpTestingController.flush` that answer 401. */
export const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };

/**
 * A test bed whose HttpClient runs the interceptor (then `after`) in front of HttpTestingController.
 * The default refresh posts to `/auth/refresh` through the same intercepted HttpClient.
 */
export function setupTokenRefresh(overrides: Partial<TokenRefreshOptions> = {}, after: HttpInterceptorFn[] = []) {
  let refreshes = 0;
  const refreshApiCall =
    overrides.refreshApiCall ??
    (() => inject(HttpClient).post('/auth/refresh', null, { observe: 'response', withCredentials: true }));
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(withInterceptors([tokenRefreshInterceptor, ...after])),
      provideHttpClientTesting(),
      provideTokenRefresh({
        extractToken: (response) => (response.body as { accessToken: string }).accessToken,
        ...overrides,
        refreshApiCall: () => {
          refreshes++;
          return refreshApiCall();
        },
      }),
    ],
  });
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    refreshCount: () => refreshes,
    state: () => injectTokenRefresh({ injector: TestBed.inject(EnvironmentInjector) }),
  };
}

export { track } from '../track.spec-helper';
