import type { HttpInterceptorFn } from '@angular/common/http';
import { type EnvironmentProviders, makeEnvironmentProviders } from '@angular/core';

// Replaces backend-providers.ts in the `real` build configuration (angular.json, fileReplacements):
// the showcase talks to the reference server (projects/reference-server) over real HTTP, on the
// same origin through a proxy (proxy.real.json for `npm run start:real`), so the SameSite=Strict
// refresh cookie travels and nothing needs CORS. Nothing to add: Angular's own HTTP backend is the
// backend, and the lab has no switches to offer (LAB_BACKEND stays null).

/** No interceptors besides the app's own: a real server answers with real HttpErrorResponses. */
export const backendInterceptors: readonly HttpInterceptorFn[] = [];

/** Nothing: the default HttpClient backend reaches the real server. */
export function provideBackend(): EnvironmentProviders {
  return makeEnvironmentProviders([]);
}
