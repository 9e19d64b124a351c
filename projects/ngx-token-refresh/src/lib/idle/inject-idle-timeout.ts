import { inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { TOKEN_REFRESH_GATE } from '../core/token-refresh-interceptor';
import { IDLE_TIMEOUT_STATE, type IdleTimeoutRef } from './idle-timeout-ref';

/**
 * Returns this application's idle timeout ({@link withIdleTimeout}): its `state` and the time
 * `remaining` as signals, for a warning dialog, and `stayActive()`. Call it in an injection context.
 *
 * @usageNotes
 * ```ts
 * export class IdleWarning {
 *   protected readonly idle = injectIdleTimeout();
 *   protected readonly seconds = computed(() => Math.ceil((this.idle.remaining() ?? 0) / 1000));
 *   // @if (idle.state() === 'warning') { Signed out in {{ seconds() }} s <button (click)="idle.stayActive()">Stay signed in</button> }
 * }
 * ```
 *
 * @throws `MissingProvider` when the application's interceptor has no `withIdleTimeout()`.
 */
export function injectIdleTimeout(): IdleTimeoutRef {
  const state = inject(IDLE_TIMEOUT_STATE, { optional: true });
  if (!state) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        "injectIdleTimeout() needs withIdleTimeout() among the interceptor's features",
    );
  }
  // The watch lives with the interceptor's state: make sure it runs, even before the first request.
  inject(TOKEN_REFRESH_GATE);
  return state.ref;
}
