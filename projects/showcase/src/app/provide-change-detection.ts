import { type EnvironmentProviders, provideZonelessChangeDetection } from '@angular/core';

// The showcase is zoneless. The `real-zone` build configuration (angular.json) replaces this file with
// provide-change-detection.zone.ts and adds the zone.js polyfill, so the browser tests also run the
// library in a zone.js application, as many applications still are.

/** The showcase's change detection: zoneless. */
export function provideChangeDetection(): EnvironmentProviders {
  return provideZonelessChangeDetection();
}
