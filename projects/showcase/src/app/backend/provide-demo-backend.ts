import { type EnvironmentProviders, importProvidersFrom } from '@angular/core';
import { HttpClientInMemoryWebApiModule } from 'angular-in-memory-web-api';

import { DemoBackend } from './demo-backend';

/**
 * Replaces the app's HTTP backend with the in-memory {@link DemoBackend}. Add it AFTER
 * `provideHttpClient(...)`: it works by overriding `HttpBackend`, and in the other order
 * `provideHttpClient` overrides it back and the mock is silently skipped. The mock's own delay is 0
 * (latency is `demoLatencyInterceptor`'s job, adjustable at run time), and unknown URLs are
 * answered with a 404 rather than passed through (that option is broken on Angular 21).
 *
 * @usageNotes
 * ```ts
 * providers: [
 *   provideHttpClient(withInterceptors([tokenRefreshInterceptor, ...demoBackendInterceptors])),
 *   provideDemoBackend(),
 * ]
 * ```
 */
export function provideDemoBackend(): EnvironmentProviders {
  return importProvidersFrom(
    HttpClientInMemoryWebApiModule.forRoot(DemoBackend, {
      delay: 0,
      dataEncapsulation: false,
      passThruUnknownUrl: false,
    }),
  );
}
