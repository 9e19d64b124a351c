import type { HttpFeature, HttpFeatureKind } from '@angular/common/http';

// Angular 21's default HttpClient backend: XMLHttpRequest. The `real-fetch` build configuration
// (angular.json) replaces this file with http-backend-features.fetch.ts, so the browser tests also run
// the cookie flow (withCredentials) over fetch, Angular 22's default.

/** `provideHttpClient` features that choose the backend: none, so XMLHttpRequest. */
export const httpBackendFeatures: HttpFeature<HttpFeatureKind>[] = [];
