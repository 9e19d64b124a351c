import { InjectionToken } from '@angular/core';

/**
 * What a provider that knows the service does at an idle timeout when the application passed nothing:
 * `provideAuth` tells its server (its logout). Read by `withIdleTimeout()`.
 */
export interface IdleTimeoutHandlers {
  readonly signOut?: (token: string) => void;
}

/** The idle timeout handlers of the injector that provides the interceptor. */
export const IDLE_TIMEOUT_HANDLERS = new InjectionToken<IdleTimeoutHandlers>(
  typeof ngDevMode !== 'undefined' && ngDevMode ? 'IDLE_TIMEOUT_HANDLERS' : '',
);
