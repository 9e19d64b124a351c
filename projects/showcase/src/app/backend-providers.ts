import type { HttpInterceptorFn } from '@angular/common/http';
import { type EnvironmentProviders, makeEnvironmentProviders } from '@angular/core';

import { demoBackendInterceptors } from './backend/demo-backend-interceptors';
import { DemoServerState } from './backend/demo-server-state';
import { provideDemoBackend } from './backend/provide-demo-backend';
import { LAB_BACKEND } from './lab/lab-backend';

// The one file that differs between the two ways of running the showcase. This one: the in-memory
// backend. The `real` build configuration (angular.json) replaces it with backend-providers.real.ts,
// which talks to the reference server over HTTP.

/**
 * The backend's interceptors, to append after `tokenRefreshInterceptor`: latency, and the mock's
 * plain error objects turned into HttpErrorResponses (see demoBackendInterceptors).
 */
export const backendInterceptors: readonly HttpInterceptorFn[] = demoBackendInterceptors;

/** The in-memory backend, and its switches for the auth lab. Must come after `provideHttpClient`. */
export function provideBackend(): EnvironmentProviders {
  return makeEnvironmentProviders([provideDemoBackend(), { provide: LAB_BACKEND, useExisting: DemoServerState }]);
}
