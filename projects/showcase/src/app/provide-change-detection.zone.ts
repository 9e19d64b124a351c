import { type EnvironmentProviders, provideZoneChangeDetection } from '@angular/core';

// Replaces provide-change-detection.ts in the `real-zone` build configuration (angular.json), which
// also loads the zone.js polyfill: the same showcase with zone.js change detection, for the browser
// tests against the reference server.

/** The showcase's change detection in the zone.js build: zone.js, with event coalescing. */
export function provideChangeDetection(): EnvironmentProviders {
  return provideZoneChangeDetection({ eventCoalescing: true });
}
