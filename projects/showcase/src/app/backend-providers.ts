import type { HttpInterceptorFn } from '@angular/common/http';
import { type EnvironmentProviders, makeEnvironmentProviders } from '@angular/core';
import { type TokenRefreshFeature, withNoCrossTabSync } from 'ngx-token-refresh';

import { demoBackendInterceptors } from './backend/demo-backend-interceptors';
import { DemoServerState } from './backend/demo-server-state';
import { provideDemoBackend } from './backend/provide-demo-backend';
import { LAB_BACKEND } from './lab/lab-backend';
import { LAB_TABS } from './lab/lab-tabs';

// The one file that differs between the two ways of running the showcase. This one: the in-memory
// backend. The `real` build configuration (angular.json) replaces it with backend-providers.real.ts,
// which talks to the reference server over HTTP.

/**
 * The backend's interceptors, to append after `tokenRefreshInterceptor`: latency, and the mock's
 * plain error objects turned into HttpErrorResponses (see demoBackendInterceptors).
 */
export const backendInterceptors: readonly HttpInterceptorFn[] = demoBackendInterceptors;

/**
 * demo: `provideAuth`'s features. Cross-tab sync off: every tab runs its own in-memory server with
 * its own sessions, so a token from another tab would be unknown here, and another tab's sign-out
 * is no reason to end this tab's session.
 */
export const authFeatures: readonly TokenRefreshFeature[] = [withNoCrossTabSync()];

/** The in-memory backend, and its switches for the auth lab. Must come after `provideHttpClient`. */
export function provideBackend(): EnvironmentProviders {
  return makeEnvironmentProviders([
    provideDemoBackend(),
    { provide: LAB_BACKEND, useExisting: DemoServerState },
    { provide: LAB_TABS, useValue: { crossTabSync: false, reuseIntervalSeconds: null } },
  ]);
}
