import { Injectable, signal } from '@angular/core';
import type { ApiError } from 'ngx-token-refresh/client';

/**
 * What the showcase's `bff` build shows when the session ends without this tab's own sign-out: the
 * errors `provideBffSession`'s `onSessionExpired` reported (app.config.bff.ts), in order. The library
 * reports once per tab and session, so more than one here would be a second report.
 */
@Injectable({ providedIn: 'root' })
export class BffSessionNotice {
  readonly #ends = signal<readonly ApiError[]>([]);
  /** Every end reported in this tab, oldest first. */
  readonly ends = this.#ends.asReadonly();

  /** Records an end, as `onSessionExpired` tells it. */
  report(error: ApiError): void {
    this.#ends.update((ends) => [...ends, error]);
  }
}
