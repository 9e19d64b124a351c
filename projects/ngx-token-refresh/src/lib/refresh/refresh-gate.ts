import {
  HttpContext,
  HttpErrorResponse,
  type HttpEvent,
  type HttpHandlerFn,
  type HttpRequest,
  type HttpResponse,
} from '@angular/common/http';
import { DOCUMENT, ErrorHandler, type Injector, runInInjectionContext, signal } from '@angular/core';
import { Observable, Subject, Subscription, catchError, from, of, tap, throwError } from 'rxjs';

import { createTokenUrlPolicy } from './create-token-url-policy';
import { isUsableToken } from './is-usable-token';
import { RefreshWave } from './refresh-wave';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { SKIP_TOKEN_REFRESH } from './skip-token-refresh';
import { TokenRefreshError } from './token-refresh-error';
import type { TokenRefreshEvent } from './token-refresh-event';
import { TOKEN_REFRESH_RETRY_COUNT } from './token-refresh-retry-count';
import type { TokenRefreshState } from './token-refresh-state';

/** Switches shared by every application that uses one controller. */
export interface GateSwitch {
  readonly isEjected: () => boolean;
  readonly eject: () => void;
  readonly reinstate: () => void;
}

/**
 * The refresh lock, queue and current token of one controller in one application. Created and
 * destroyed with the application's root injector, so applications never share a refresh.
 *
 * Each refresh is a {@link RefreshWave} that requests failing while it runs wait on. Unlike the usual
 * `BehaviorSubject<string | null>` pattern, the wave carries failures too (so waiters never hang),
 * the refresh is subscribed by the gate and not by the request that started it (so cancelling that
 * request cannot cancel the refresh), releasing N waiters costs O(N), and an epoch counter
 * recognises 401s that belong to a token replaced in the meantime.
 */
export class RefreshGate implements TokenRefreshState {
  readonly #refreshing = signal(false);
  readonly #currentToken = signal<string | null>(null);
  readonly #eventSubject = new Subject<TokenRefreshEvent>();

  readonly isRefreshing = this.#refreshing.asReadonly();
  readonly token = this.#currentToken.asReadonly();
  readonly events = this.#eventSubject.asObservable();

  /** The refresh in flight, or `null` when idle. */
  #wave: RefreshWave | null = null;
  #waveSubscription: Subscription | null = null;
  /** Plain copy of the token: signal reads inside an `effect` would make it track the interceptor. */
  #tokenValue: string | null = null;
  /** Bumped whenever the token changes, so a request knows whether its 401 is about an older token. */
  #epoch = 0;
  /** Above 0 while `refreshApiCall` runs: requests arriving then are the refresh call itself. */
  #refreshCallDepth = 0;
  readonly #isAllowedUrl: (url: string) => boolean;
  readonly #errorHandler: ErrorHandler | null;
  readonly #warnedOrigins = new Set<string>();

  readonly #options: ResolvedTokenRefreshOptions;
  readonly #switches: GateSwitch;
  readonly #injector: Injector;

  constructor(options: ResolvedTokenRefreshOptions, switches: GateSwitch, injector: Injector) {
    this.#options = options;
    this.#switches = switches;
    this.#injector = injector;
    // baseURI is what relative request URLs resolve against (it honours <base href>).
    const document = injector.get(DOCUMENT, null);
    this.#isAllowedUrl = createTokenUrlPolicy(options.allowedOrigins, document?.baseURI || document?.location?.href);
    this.#errorHandler = injector.get(ErrorHandler, null);
  }

  intercept(request: HttpRequest<unknown>, next: HttpHandlerFn): Observable<HttpEvent<unknown>> {
    // has() first: get() would store the default in every request's context.
    const context = request.context;
    if (this.#refreshCallDepth > 0 || (context.has(SKIP_TOKEN_REFRESH) && context.get(SKIP_TOKEN_REFRESH))) {
      return next(request);
    }
    if (!this.#isAllowedUrl(request.url)) {
      return typeof ngDevMode !== 'undefined' && ngDevMode
        ? next(request).pipe(tap({ error: warnUnmanaged(request, this.#options.statusCodes, this.#warnedOrigins) }))
        : next(request);
    }
    const arrivalEpoch = this.#epoch;
    const wave = this.#wave;
    if (wave) {
      // The token this request would carry is known to be rejected: wait for the new one instead of
      // paying a round trip for a certain 401. After a failed refresh it goes out unchanged (it may
      // not need a token at all) and keeps its arrival epoch, so its 401 then ends at the caller
      // without another refresh.
      this.#emit({ type: 'requestHeld', request });
      return wave.wait((outcome) =>
        outcome.ok
          ? this.#send(this.#options.setAuthHeader(request, outcome.token), request, next, 0, outcome.epoch)
          : this.#send(request, request, next, 0, arrivalEpoch),
      );
    }
    const token = this.#tokenValue;
    const outgoing =
      this.#options.attachToken && token !== null ? this.#options.setAuthHeader(request, token) : request;
    return this.#send(outgoing, request, next, 0, arrivalEpoch);
  }

  refresh(): Observable<string> {
    // Lazy like every Observable: the refresh starts (or is joined) on subscription.
    return new Observable<string>((subscriber) => {
      (this.#wave ?? this.#startRefresh(null))
        .wait((outcome) => (outcome.ok ? of(outcome.token) : throwError(() => outcome.error)))
        .subscribe(subscriber);
    });
  }

  setToken(token: string | null): void {
    const wave = this.#wave;
    this.#updateToken(token);
    if (!wave) return;
    // The app decided (a login, a logout) while a refresh ran: its answer no longer matters. End it
    // without callbacks; waiters repeat with the app's token, or get their own error after a logout.
    this.#unlock(wave);
    this.#release(wave, token);
  }

  eject(): void {
    this.#switches.eject();
  }

  reinstate(): void {
    this.#switches.reinstate();
  }

  /** Ends a refresh in flight when the application is destroyed, so no caller is left waiting. */
  destroy(): void {
    const wave = this.#wave;
    if (wave) {
      this.#unlock(wave);
      wave.settle({
        ok: false,
        error: new TokenRefreshError(
          'Destroyed',
          typeof ngDevMode !== 'undefined' && ngDevMode
            ? 'the application was destroyed while the refresh was in flight'
            : undefined,
        ),
      });
    }
    this.#eventSubject.complete();
  }

  /**
   * Sends `request` and handles its failure. `original` is the request as the caller made it (events
   * show that one, so they never carry a token), `sentEpoch` the token state `request` was sent in.
   */
  #send(
    request: HttpRequest<unknown>,
    original: HttpRequest<unknown>,
    next: HttpHandlerFn,
    retries: number,
    sentEpoch: number,
  ): Observable<HttpEvent<unknown>> {
    return next(request).pipe(
      catchError((error: unknown) =>
        error instanceof HttpErrorResponse &&
        retries < this.#options.maxRetryCount &&
        this.#options.statusCodes.includes(error.status) &&
        !this.#switches.isEjected()
          ? this.#recover(request, original, next, retries, sentEpoch, error)
          : throwError(() => error),
      ),
    );
  }

  #recover(
    request: HttpRequest<unknown>,
    original: HttpRequest<unknown>,
    next: HttpHandlerFn,
    retries: number,
    sentEpoch: number,
    error: HttpErrorResponse,
  ): Observable<HttpEvent<unknown>> {
    if (!this.#wave && this.#epoch !== sentEpoch) {
      // The token changed after this request left, so its 401 is about an older token: repeat it
      // with the current one, or, if the last refresh failed (no token), let the caller have it.
      const token = this.#tokenValue;
      return token !== null
        ? this.#retry(request, original, next, retries, token, this.#epoch)
        : throwError(() => error);
    }
    this.#emit({ type: 'requestQueued', request: original, status: error.status });
    const wave = this.#wave ?? this.#startRefresh(original);
    return wave.wait((outcome) =>
      outcome.ok
        ? this.#retry(request, original, next, retries, outcome.token, outcome.epoch)
        : throwError(() => (outcome.own ? error : outcome.error)),
    );
  }

  #retry(
    request: HttpRequest<unknown>,
    original: HttpRequest<unknown>,
    next: HttpHandlerFn,
    retries: number,
    token: string,
    epoch: number,
  ): Observable<HttpEvent<unknown>> {
    const attempt = retries + 1;
    // A fresh context: the caller's context object may be shared with other requests.
    const context = new HttpContext();
    for (const key of request.context.keys()) context.set(key, request.context.get(key));
    context.set(TOKEN_REFRESH_RETRY_COUNT, attempt);
    this.#emit({ type: 'requestRetried', request: original, attempt });
    return this.#send(this.#options.setAuthHeader(request.clone({ context }), token), original, next, attempt, epoch);
  }

  #startRefresh(trigger: HttpRequest<unknown> | null): RefreshWave {
    // A wave of its own per refresh, so a new refresh started from inside the release of the
    // previous one (a repeat failing again at once) can never hand its outcome to older waiters.
    const wave = new RefreshWave();
    // Owned here, not by the triggering request: unsubscribing that request never cancels the refresh.
    const subscription = new Subscription();
    this.#wave = wave;
    this.#waveSubscription = subscription;
    this.#refreshing.set(true);
    this.#emit({ type: 'refreshStarted', request: trigger });

    const settle = (
      result: { ok: true; token: string; response: HttpResponse<unknown> } | { ok: false; error: unknown },
    ) => {
      if (subscription.closed) return;
      subscription.unsubscribe();
      this.#finish(wave, result);
    };

    const { refreshTimeout } = this.#options;
    if (refreshTimeout !== Infinity) {
      const timer = setTimeout(
        () =>
          settle({
            ok: false,
            error: new TokenRefreshError(
              'Timeout',
              typeof ngDevMode !== 'undefined' && ngDevMode
                ? `the refresh took longer than ${refreshTimeout} ms`
                : undefined,
            ),
          }),
        refreshTimeout,
      );
      subscription.add(() => clearTimeout(timer));
    }

    this.#refreshCallDepth++;
    try {
      subscription.add(
        from(runInInjectionContext(this.#injector, this.#options.refreshApiCall)).subscribe({
          next: (response) => settle(this.#readToken(response)),
          error: (error: unknown) => settle({ ok: false, error }),
          complete: () =>
            settle({
              ok: false,
              error: new TokenRefreshError(
                'NoResponse',
                typeof ngDevMode !== 'undefined' && ngDevMode
                  ? 'refreshApiCall completed without a response'
                  : undefined,
              ),
            }),
        }),
      );
    } catch (error) {
      settle({ ok: false, error });
    } finally {
      this.#refreshCallDepth--;
    }
    return wave;
  }

  #readToken(
    response: HttpResponse<unknown>,
  ): { ok: true; token: string; response: HttpResponse<unknown> } | { ok: false; error: unknown } {
    let token: unknown;
    try {
      token = this.#options.extractToken(response);
    } catch (error) {
      return { ok: false, error };
    }
    if (isUsableToken(token)) return { ok: true, token, response };
    return {
      ok: false,
      error: new TokenRefreshError(
        'InvalidToken',
        typeof ngDevMode !== 'undefined' && ngDevMode
          ? `extractToken returned ${describeNonToken(token)} instead of a token`
          : undefined,
      ),
    };
  }

  #finish(
    wave: RefreshWave,
    result: { ok: true; token: string; response: HttpResponse<unknown> } | { ok: false; error: unknown },
  ): void {
    // A refresh that answers synchronously ends inside refreshApiCall; what follows (callbacks and
    // repeats) is not part of the refresh call and must go through the interceptor as usual.
    const depth = this.#refreshCallDepth;
    this.#refreshCallDepth = 0;
    try {
      this.#unlock(wave);
      this.#updateToken(result.ok ? result.token : null);
      // Callbacks run before the queue is released: a token stored by onRefreshSuccess is in place
      // for the repeats, and onRefreshFailure can clear the session before callers see their errors.
      if (result.ok) {
        this.#emit({ type: 'refreshSucceeded' });
        this.#notify(() => this.#options.onRefreshSuccess?.(result.token, result.response));
        // The token as it is now: a callback may have replaced it through setToken (which also moves
        // the epoch on), or cleared it, and then the waiters must not repeat with the refreshed one.
        this.#release(wave, this.#tokenValue);
      } else {
        this.#emit({ type: 'refreshFailed', error: result.error });
        this.#notify(() => this.#options.onRefreshFailure?.(result.error));
        wave.settle(result);
      }
    } finally {
      this.#refreshCallDepth = depth;
    }
  }

  /** Releases the waiters of `wave` with `token`, or, for `null` (a logout), with their own errors. */
  #release(wave: RefreshWave, token: string | null): void {
    wave.settle(
      token !== null
        ? { ok: true, token, epoch: this.#epoch }
        : {
            ok: false,
            error: new TokenRefreshError(
              'Cancelled',
              typeof ngDevMode !== 'undefined' && ngDevMode ? 'setToken(null) ended the refresh' : undefined,
            ),
            own: true,
          },
    );
  }

  /** Frees the lock held by `wave`, so the next 401 starts a new refresh. */
  #unlock(wave: RefreshWave): void {
    if (this.#wave !== wave) return;
    this.#wave = null;
    this.#waveSubscription?.unsubscribe();
    this.#waveSubscription = null;
    this.#refreshing.set(false);
  }

  #updateToken(token: string | null): void {
    this.#tokenValue = token;
    this.#currentToken.set(token);
    this.#epoch++;
  }

  /** A throwing callback is the app's bug: report it, but never let it strand the queue. */
  #notify(callback: () => void): void {
    try {
      runInInjectionContext(this.#injector, callback);
    } catch (error) {
      if (this.#errorHandler) this.#errorHandler.handleError(error);
      else console.error(error);
    }
  }

  #emit(event: TokenRefreshEvent): void {
    if (this.#eventSubject.observed) this.#eventSubject.next(event);
  }
}

/**
 * Dev mode: says once per origin why a 401 from it did not start a refresh. A function, not a
 * method: production builds drop it with the dev-mode branch that calls it.
 */
function warnUnmanaged(
  request: HttpRequest<unknown>,
  statusCodes: readonly number[],
  warnedOrigins: Set<string>,
): (error: unknown) => void {
  return (error) => {
    if (!(error instanceof HttpErrorResponse) || !statusCodes.includes(error.status)) return;
    let origin: string;
    try {
      origin = new URL(request.url, 'https://application.invalid').origin;
    } catch {
      origin = request.url;
    }
    if (warnedOrigins.has(origin)) return;
    warnedOrigins.add(origin);
    console.warn(
      `ngx-token-refresh: a ${error.status} from ${request.url} did not start a refresh, because tokens may not ` +
        `go there. Add its origin to allowedOrigins if it should (https only, or http on localhost).`,
    );
  };
}

/** Dev mode: what `extractToken` returned instead of a token, for the error message. */
function describeNonToken(token: unknown): string {
  if (typeof token !== 'string') return String(token);
  return token === '' ? 'an empty string' : 'a string with spaces or control characters';
}
