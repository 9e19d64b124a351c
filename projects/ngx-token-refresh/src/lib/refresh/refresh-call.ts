import type { HttpResponse } from '@angular/common/http';
import { type Injector, runInInjectionContext } from '@angular/core';
import { AsyncSubject, Observable, catchError, from, map, of, take, throwIfEmpty } from 'rxjs';

import { isUsableToken } from './is-usable-token';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { TokenRefreshError } from './token-refresh-error';

/** How one refresh call ended: a usable token with the response it came in, or why there is none. */
export type RefreshResult =
  | { readonly ok: true; readonly token: string; readonly response: HttpResponse<unknown> }
  | { readonly ok: false; readonly error: unknown };

/**
 * The refresh request of one application: `refreshApiCall` in the application's injection context,
 * its token checked, bounded by `refreshTimeout`. While `refreshApiCall` runs and its request is being
 * sent, {@link isSending} is true, so the interceptor lets that request (and only it) through untouched.
 */
export class RefreshCall {
  /** Above 0 while `refreshApiCall` runs: requests arriving then are the refresh request itself. */
  #depth = 0;
  readonly #options: ResolvedTokenRefreshOptions;
  readonly #injector: Injector;

  constructor(options: ResolvedTokenRefreshOptions, injector: Injector) {
    this.#options = options;
    this.#injector = injector;
  }

  /** Whether a request arriving now is the refresh request itself. */
  get isSending(): boolean {
    return this.#depth > 0;
  }

  /**
   * Calls `refreshApiCall` once per subscription and emits one {@link RefreshResult}, then completes;
   * never errors. Unsubscribing cancels the refresh request.
   */
  run(): Observable<RefreshResult> {
    return new Observable<RefreshResult>((subscriber) => {
      // A refresh can answer synchronously, inside the window below. Its result waits here until the
      // window has closed: what follows (callbacks, repeats) is not the refresh request and must go
      // through the interceptor as usual.
      const result = new AsyncSubject<RefreshResult>();
      const settle = (outcome: RefreshResult) => {
        result.next(outcome);
        result.complete();
      };
      const { refreshTimeout, refreshApiCall } = this.#options;
      if (refreshTimeout !== Infinity) {
        const timer = setTimeout(
          () =>
            settle({
              ok: false,
              error: new TokenRefreshError(
                'Timeout',
                typeof ngDevMode !== 'undefined' && ngDevMode && `the refresh took longer than ${refreshTimeout} ms`,
              ),
            }),
          refreshTimeout,
        );
        subscriber.add(() => clearTimeout(timer));
      }
      this.#depth++;
      try {
        subscriber.add(
          from(runInInjectionContext(this.#injector, refreshApiCall))
            .pipe(
              take(1),
              map((response): RefreshResult => ({ ok: true, token: this.#readToken(response), response })),
              throwIfEmpty(
                () =>
                  new TokenRefreshError(
                    'NoResponse',
                    typeof ngDevMode !== 'undefined' && ngDevMode && 'refreshApiCall completed without a response',
                  ),
              ),
              catchError((error: unknown) => of({ ok: false, error } as const)),
            )
            .subscribe(settle),
        );
      } catch (error) {
        settle({ ok: false, error });
      } finally {
        this.#depth--;
      }
      subscriber.add(result.subscribe(subscriber));
    });
  }

  /** The token of `response`; throws what `extractToken` throws, or `InvalidToken` for a non-token. */
  #readToken(response: HttpResponse<unknown>): string {
    const token: unknown = this.#options.extractToken(response);
    if (isUsableToken(token)) return token;
    throw new TokenRefreshError(
      'InvalidToken',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        `extractToken returned ${describeNonToken(token)} instead of a token`,
    );
  }
}

/** Dev mode: what `extractToken` returned instead of a token, for the error message. */
function describeNonToken(token: unknown): string {
  if (typeof token !== 'string') return String(token);
  return token === '' ? 'an empty string' : 'a string with spaces or control characters';
}
