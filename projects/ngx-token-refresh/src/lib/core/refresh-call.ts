import type { HttpResponse } from '@angular/common/http';
import { type Injector, runInInjectionContext } from '@angular/core';
import { Observable, from } from 'rxjs';

import { isUsableToken } from '../internal/is-usable-token';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { TokenRefreshError } from './token-refresh-error';

/**
 * How one refresh call ended: a usable token with the response it came in and when it expires (device
 * time in ms, `null` when the response does not say), or why there is none.
 */
export type RefreshResult =
  | {
      readonly ok: true;
      readonly token: string;
      readonly response: HttpResponse<unknown>;
      readonly expiresAt: number | null;
    }
  | { readonly ok: false; readonly error: unknown };

/**
 * The refresh request of one application: `refreshApiCall` in the application's injection context,
 * its token checked, bounded by `refreshTimeout`. While `refreshApiCall` runs and its request is being
 * sent, {@link isSending} is true, so the interceptor lets every request of that moment (the refresh
 * request, and whatever else `refreshApiCall` sends at once) through untouched.
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
      let result: RefreshResult | null = null;
      let calling = true;
      const deliver = () => {
        subscriber.next(result!);
        subscriber.complete();
      };
      // The first outcome counts (the first value, an error, completion, or the timeout). One that
      // arrives synchronously, inside the window below, is delivered once the window has closed: what
      // follows (callbacks, repeats) is not the refresh request and must go through the interceptor.
      const settle = (outcome: RefreshResult) => {
        if (result) return;
        result = outcome;
        if (!calling) deliver();
      };
      const { refreshTimeout, refreshApiCall } = this.#options;
      const sentAt = Date.now();
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
          from(runInInjectionContext(this.#injector, refreshApiCall)).subscribe({
            next: (response) => settle(this.#read(response, sentAt)),
            error: (error: unknown) => settle({ ok: false, error }),
            complete: () =>
              settle({
                ok: false,
                error: new TokenRefreshError(
                  'NoResponse',
                  typeof ngDevMode !== 'undefined' && ngDevMode && 'refreshApiCall completed without a response',
                ),
              }),
          }),
        );
      } catch (error) {
        settle({ ok: false, error });
      } finally {
        this.#depth--;
        calling = false;
      }
      if (result) deliver();
    });
  }

  /**
   * When the token of `response` expires, as `extractExpiresIn` tells, counted from `sentAt`; a throw
   * there counts as unknown.
   */
  #expiresAt(response: HttpResponse<unknown>, sentAt: number): number | null {
    try {
      return expiresAtFrom(this.#options.extractExpiresIn?.(response), sentAt);
    } catch {
      return null;
    }
  }

  /** The token of `response`, or why there is none: what `extractToken` threw, or `InvalidToken`. */
  #read(response: HttpResponse<unknown>, sentAt: number): RefreshResult {
    let token: unknown;
    try {
      token = this.#options.extractToken(response);
    } catch (error) {
      return { ok: false, error };
    }
    if (isUsableToken(token)) return { ok: true, token, response, expiresAt: this.#expiresAt(response, sentAt) };
    return {
      ok: false,
      error: new TokenRefreshError(
        'InvalidToken',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          `extractToken returned ${describeNonToken(token)} instead of a token`,
      ),
    };
  }
}
/**
 * When a token that lives `seconds` (OAuth's `expires_in`) expires, on this device's clock: counted
 * from `issuedAt`, the earliest moment it can have been issued (when its request was sent), and a
 * second early, since servers count whole seconds (a token issued at 12.9 s may say it was issued at
 * 12 s). `null` unless `seconds` is a positive finite number.
 */
export function expiresAtFrom(seconds: unknown, issuedAt = Date.now()): number | null {
  return typeof seconds === 'number' && seconds > 0 && seconds < Infinity ? issuedAt + seconds * 1000 - 1000 : null;
}

/** Dev mode: what `extractToken` returned instead of a token, for the error message. */
function describeNonToken(token: unknown): string {
  if (typeof token !== 'string') return String(token);
  return token === '' ? 'an empty string' : 'a string with spaces or control characters';
}
