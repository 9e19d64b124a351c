import { type HttpFeature, type HttpFeatureKind, withFetch } from '@angular/common/http';

// Replaces http-backend-features.ts in the `real-fetch` build configuration (angular.json).

/** `provideHttpClient` features that choose the backend: fetch. */
export const httpBackendFeatures: HttpFeature<HttpFeatureKind>[] = [withFetch()];
