import { EnvironmentInjector, ErrorHandler, inject, runInInjectionContext } from '@angular/core';

/**
 * Returns the one way the library runs an application's callback (`onRefreshSuccess`,
 * `onRefreshFailure`, `onSignedOutElsewhere`, `onSessionExpired`): in the application's injection
 * context, and a throw is reported to its `ErrorHandler` (the console without one), never rethrown.
 * A throwing callback is the application's bug; rethrown, it would strand the requests waiting on a
 * refresh or the tabs waiting on a sign-out. Call it in an injection context (a constructor).
 */
export function injectCallbackRunner(): (callback: (() => void) | undefined) => void {
  const injector = inject(EnvironmentInjector);
  const errorHandler = inject(ErrorHandler, { optional: true });
  return (callback) => {
    if (!callback) return;
    try {
      runInInjectionContext(injector, callback);
    } catch (error) {
      if (errorHandler) errorHandler.handleError(error);
      else console.error(error);
    }
  };
}
