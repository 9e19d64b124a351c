import { Injector, assertInInjectionContext, inject } from '@angular/core';
import { ɵRuntimeError as RuntimeError } from 'ngx-token-refresh';

import type { BffSessionRef } from './bff-session-ref';
import { BffSessionState } from './bff-session-state';

/**
 * This application's session with its backend for frontend ({@link provideBffSession}): the signed-in
 * `user` and the `status` as signals, `signIn(returnUrl?)`, `signOut()` and `reload()`. Needs an
 * injection context unless `injector` is given.
 *
 * @usageNotes
 * ```ts
 * @Component({
 *   selector: 'app-account',
 *   template: `@if (session.user(); as user) {
 *       {{ user['name'] ?? user.sub }} <button (click)="session.signOut()">Sign out</button>
 *     } @else if (session.status() === 'signedOut') {
 *       <button (click)="session.signIn()">Sign in</button>
 *     }`,
 * })
 * export class Account {
 *   protected readonly session = injectBffSession();
 * }
 * ```
 *
 * @throws `MissingProvider` when the application has no `provideBffSession()`.
 */
export function injectBffSession(options?: { injector?: Injector }): BffSessionRef {
  if (!options?.injector) assertInInjectionContext(injectBffSession);
  const state = (options?.injector ?? inject(Injector)).get(BffSessionState, null);
  if (state === null) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        'injectBffSession() needs provideBffSession() in the application providers',
    );
  }
  return state.ref;
}
