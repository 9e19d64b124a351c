import { Observable } from 'rxjs';

/**
 * How a refresh ended. A new token comes with the epoch it opened, so a repeat is stamped with the
 * token state it really carries. `own` means "give each failed request its own error back" (the app
 * cleared the token while the refresh ran); `error` is then for callers of `refresh()`.
 */
export type RefreshOutcome =
  | { readonly ok: true; readonly token: string; readonly epoch: number }
  | { readonly ok: false; readonly error: unknown; readonly own?: true };

/**
 * One refresh and the requests waiting for its outcome.
 *
 * Not a `Subject`: rxjs keeps a subject's observers in an array, and each waiter that unsubscribes
 * (a `take(1)`, a cancelled request) is spliced out of it, which makes releasing N waiters cost
 * O(N²) (seconds at N = 100,000). Here the waiters are a `Set`, released in one pass, and a cancelled
 * waiter leaves in O(1).
 */
export class RefreshWave {
  readonly #waiters = new Set<(outcome: RefreshOutcome) => void>();
  #outcome: RefreshOutcome | null = null;

  /**
   * Subscribes to `then(outcome)` once the refresh has settled. A wave that has already settled
   * replays its outcome at once: a refresh can settle synchronously, before the request that
   * started it begins to wait.
   */
  wait<T>(then: (outcome: RefreshOutcome) => Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      const release = (outcome: RefreshOutcome) => {
        // Cancelled, but still registered: a finalizer that ran before ours settled the wave.
        if (subscriber.closed) return;
        try {
          then(outcome).subscribe(subscriber);
        } catch (error) {
          subscriber.error(error);
        }
      };
      if (this.#outcome) {
        release(this.#outcome);
        return;
      }
      this.#waiters.add(release);
      return () => this.#waiters.delete(release);
    });
  }

  /** Releases every waiter with `outcome`; later calls are ignored (the first outcome stands). */
  settle(outcome: RefreshOutcome): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    // A release can cancel waiters further on (a repeat that completes at once ends a switchMap in
    // the app); the Set's iteration skips entries deleted before it reaches them, so those send nothing.
    for (const release of this.#waiters) {
      this.#waiters.delete(release);
      release(outcome);
    }
  }
}
