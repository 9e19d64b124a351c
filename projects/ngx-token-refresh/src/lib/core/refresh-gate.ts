import { HttpContext, HttpErrorResponse, type HttpHandlerFn, type HttpRequest } from '@angular/common/http';
import { DOCUMENT, DestroyRef, EnvironmentInjector, inject, signal } from '@angular/core';
import { BehaviorSubject, EMPTY, Observable, Subject, Subscription, catchError, defer, filter, of } from 'rxjs';
import { switchMap, take, throwError } from 'rxjs';

import { injectCallbackRunner } from '../internal/inject-callback-runner';
import { createTokenUrlPolicy, readBaseHref } from './create-token-url-policy';
import type { GateHost, GatePlugin } from './gate-plugin';
import { RefreshCall, type RefreshResult, expiresAtFrom } from './refresh-call';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { SKIP_TOKEN_REFRESH } from './skip-token-refresh';
import { TokenRefreshError } from './token-refresh-error';
import type { TokenRefreshEvent } from './token-refresh-event';
import type { TokenRefreshRef } from './token-refresh-ref';
import { TOKEN_REFRESH_RETRY_COUNT } from './token-refresh-retry-count';
import { warnTokenNotAttached } from './warn-token-not-attached';
import { warnUnmanagedOrigin } from './warn-unmanaged-origin';

/** What a request sent on answers. */
type Sent = ReturnType<HttpHandlerFn>;

/**
 * How a refresh ended, as the requests waiting on it see it. A token comes with the epoch it opened,
 * so a repeat is stamped with the token state it really carries. `own` means "give each failed
 * request its own error back" (the app cleared the token while the refresh ran); `error` is then for
 * callers of `refresh()`.
 */
type RefreshOutcome =
  | { readonly ok: true; readonly token: string; readonly epoch: number }
  | { readonly ok: false; readonly error: unknown; readonly own?: true };

/** The refresh in flight: all the gate holds of it, dropped as one where it ends (`#end`). */
interface InFlight {
  /** `null` until the refresh ends, then its outcome: what its waiters wait on (`#wait`). */
  readonly outcome: BehaviorSubject<RefreshOutcome | null>;
  /** The outcome once it is there: made once per refresh, shared by its waiters (`filter`, `take(1)`). */
  readonly settled: Observable<RefreshOutcome>;
  /** The gate's subscription to the refresh call; ending the refresh drops the call. */
  readonly call: Subscription;
  /**
   * Started ahead of expiry, and nothing needs its token yet: if it fails, the current token (still
   * valid) stays, and nobody is told.
   */
  ahead: boolean;
}

/**
 * The refresh lock, queue and current token of one application (created in, and ended with, its
 * root or environment injector), read top to bottom as the lock and request tables of the design.
 *
 * Each refresh has a `BehaviorSubject` of its outcome: `null` while in flight, then the token with its
 * epoch, or the failure, so no waiter ever hangs. Held and queued requests wait on it with
 * `filter` / `take(1)` / `switchMap`; one that starts waiting after the refresh ended (a refresh
 * can answer synchronously) gets the outcome replayed. The gate, not the request that started it,
 * subscribes to the refresh call, so cancelling that request never cancels the refresh. The epoch
 * counts token changes, so a 401 for an older token is repeated instead of refreshing again.
 *
 * Features are plug-ins ({@link GatePlugin}), called at a few points; the gate knows none by name.
 */
export class RefreshGate implements GateHost {
  readonly #refreshing = signal(false);
  readonly #token = signal<string | null>(null);
  /** The token as `#token` holds it, read on the request path without a signal read. */
  #current: string | null = null;
  /** When `#current` expires (device time, ms), as its issuer said (`expires_in`); `null` when unknown. */
  #expiresAt: number | null = null;
  readonly #events = new Subject<TokenRefreshEvent>();
  /** The refresh in flight, or `null` when idle. */
  #inFlight: InFlight | null = null;
  #epoch = 0;
  readonly #allows: (url: string) => boolean;
  /** Dev mode: what this application was warned about already (origins, warning codes). */
  readonly #warned = new Set<string>();
  /** Runs the app's callbacks: a throw is reported, and never strands the queue. */
  readonly #notify = injectCallbackRunner();
  readonly #refreshCall: RefreshCall;
  readonly options: ResolvedTokenRefreshOptions;
  /** The features' plug-in (one for all of them), or none: then no point costs more than a `?.`. */
  #plugin: GatePlugin | null = null;
  /** `disable()`: the interceptor lets every request and response by untouched. */
  #disabled = false;

  /** What `injectTokenRefresh()` hands out. */
  readonly ref: TokenRefreshRef = {
    isRefreshing: this.#refreshing.asReadonly(),
    token: this.#token.asReadonly(),
    events: this.#events.asObservable(),
    refresh: () =>
      defer(() =>
        this.#wait(this.#join(null), (outcome) => (outcome.ok ? of(outcome.token) : throwError(() => outcome.error))),
      ),
    setToken: (token, options) => {
      const inFlight = this.#inFlight;
      // A token put back (`restored`) is not a new one: no clock is read from it, no other tab told.
      const fresh = !options?.restored;
      this.#setCurrentToken(token, expiresAtFrom(options?.expiresIn), fresh, fresh);
      // The app decided (a login, a logout) while a refresh ran: its answer no longer matters. End it
      // without callbacks; waiters repeat with the app's token, or get their own error after a logout.
      if (inFlight) this.#end(inFlight);
    },
    disable: () => this.#setDisabled(true),
    enable: () => this.#setDisabled(false),
  };

  /** Needs an injection context: the gate lives as long as the injector that creates it. */
  constructor(options: ResolvedTokenRefreshOptions, plug?: ((host: GateHost) => GatePlugin | null) | null) {
    this.options = options;
    this.#refreshCall = new RefreshCall(options, inject(EnvironmentInjector));
    const document = inject(DOCUMENT, { optional: true });
    this.#allows = createTokenUrlPolicy(options.allowedOrigins, () => readBaseHref(document));
    inject(DestroyRef).onDestroy(() => {
      // Ends a refresh in flight, so no caller is left waiting.
      if (this.#inFlight) this.#end(this.#inFlight, undefined, true);
      this.#events.complete();
    });
    this.#plugin = plug?.(this) ?? null;
  }

  intercept(request: HttpRequest<unknown>, next: HttpHandlerFn): Sent {
    if (this.#refreshCall.isSending) {
      // The refresh request itself: a plug-in may send it its way (a server render's cookies, a proof).
      return this.#plugin?.sendRefresh?.(request, next, this.#allows(request.url)) ?? next(request);
    }
    this.#plugin?.request?.();
    // has() first: get() would store the default in every request's context.
    const context = request.context;
    if (this.#disabled || (context.has(SKIP_TOKEN_REFRESH) && context.get(SKIP_TOKEN_REFRESH))) {
      // A sender still sends what `withToken` marked for it (a sign-in's proof).
      return this.#send(request, next, null, Infinity);
    }
    if (!this.#allows(request.url)) {
      return typeof ngDevMode !== 'undefined' && ngDevMode
        ? warnUnmanagedOrigin(next(request), request, this.options.refreshOnStatus, this.#warned)
        : next(request);
    }
    const arrival = this.#epoch;
    const inFlight = this.#inFlight;
    if (!inFlight) return this.#send(request, next, this.options.attachToken ? this.#current : null, 0, arrival);
    // Its token is known to be rejected: wait for the new one instead of paying for a certain 401.
    // After a failed refresh it goes out as it came (it may need no token) with its arrival epoch,
    // so a 401 then reaches the caller without another refresh.
    if (this.#events.observed) this.#events.next({ type: 'requestHeld', request });
    return this.#wait(inFlight, (outcome) =>
      outcome.ok
        ? this.#send(request, next, outcome.token, 0, outcome.epoch)
        : this.#send(request, next, null, 0, arrival),
    );
  }

  /**
   * `request` with `token` written by `setAuthHeader`, if its URL may carry a token; else unchanged.
   * With a sender, `request` is marked for it instead (a proof is signed when it is sent), and `null`
   * asks for what the sender adds alone (a proof carries no secret, so it goes wherever the request goes).
   */
  withToken(request: HttpRequest<unknown>, token: string | null): HttpRequest<unknown> {
    if (token !== null && !this.#allows(request.url)) return request;
    return this.#plugin?.mark?.(request, token) ?? (token === null ? request : this.#write(request, token));
  }

  readonly token = () => this.#current;
  readonly expiresAt = () => this.#expiresAt;
  readonly disabled = () => this.#disabled;
  readonly changed = () => this.#plugin?.changed?.(false, false);

  /** Another tab brought a token: it replaces this tab's, and ends a refresh waiting for its turn. */
  receive(token: string, expiresAt: number | null): void {
    if (token === this.#current) return;
    const inFlight = this.#inFlight;
    this.#setCurrentToken(token, expiresAt, true);
    this.emit({ type: 'tokenReceived', waiting: inFlight !== null });
    if (inFlight) this.#end(inFlight);
  }

  plannedRefresh(ahead: boolean): void {
    if (!this.#inFlight && !this.#disabled && this.#plugin?.mayRefresh?.(true) !== false) this.#start(null, ahead);
  }

  emit(event: TokenRefreshEvent): void {
    this.#plugin?.event?.(event);
    if (this.#events.observed) this.#events.next(event);
  }

  share(token: string): Promise<unknown> {
    return this.#plugin?.share?.(token) ?? Promise.resolve();
  }

  #write(request: HttpRequest<unknown>, token: string, context?: HttpContext): HttpRequest<unknown> {
    const write = this.options.setAuthHeader;
    if (write) return write(context ? request.clone({ context }) : request, token);
    // The default writer: the repeat's context and the header in one copy of the request (`headers.set`:
    // `setHeaders` would allocate its keys and a reducer for one header).
    return request.clone({ context, headers: request.headers.set('Authorization', `Bearer ${token}`) });
  }

  /**
   * Sends `original` (with the `context` of a repeat) with `token` (none for `null`; by the sender,
   * else written by `setAuthHeader`) in token state `epoch`, and, while repeats are left after
   * `retries`, turns a 401 into a refresh and a repeat.
   */
  #send(
    original: HttpRequest<unknown>,
    next: HttpHandlerFn,
    token: string | null,
    retries: number,
    epoch = 0,
    context?: HttpContext,
  ) {
    const plugin = this.#plugin;
    const sent = plugin?.send
      ? plugin.send(context ? original.clone({ context }) : original, token, next)
      : next(token === null ? original : this.#write(original, token, context));
    // Out of retries (a repeat, by default): nothing left to catch, so no operator to pay for.
    if (retries >= this.options.maxRetryCount) return sent;
    return sent.pipe(
      catchError((error: unknown) => {
        const status = error instanceof HttpErrorResponse ? error.status : 0;
        if (!this.options.refreshOnStatus.includes(status) || this.#disabled) return throwError(() => error);
        // Sent without a token, and the token has not changed since (the epoch did not move): if the
        // gate holds one, it held it then, and the 401 is likely just for the missing token.
        if (typeof ngDevMode !== 'undefined' && ngDevMode && token === null && epoch === this.#epoch) {
          warnTokenNotAttached(original, status, this.#current, this.options.setAuthHeader, this.#warned);
        }
        // A plug-in says no (the session ended for idleness): the 401 is the answer.
        if (this.#plugin?.mayRefresh?.(false) === false) return throwError(() => error);
        if (!this.#inFlight && this.#epoch !== epoch) {
          // The token changed after this request left, so its 401 is about an older token: repeat it
          // with the current one, or, if the last refresh failed (no token), let the caller have it.
          const current = this.#current;
          return current !== null
            ? this.#repeat(original, next, retries, current, this.#epoch)
            : throwError(() => error);
        }
        if (this.#events.observed) this.#events.next({ type: 'requestQueued', request: original, status });
        return this.#wait(this.#join(original), (outcome) =>
          outcome.ok
            ? this.#repeat(original, next, retries, outcome.token, outcome.epoch)
            : throwError(() => (outcome.own ? error : outcome.error)),
        );
      }),
    );
  }

  #repeat(original: HttpRequest<unknown>, next: HttpHandlerFn, retries: number, token: string, epoch: number): Sent {
    const attempt = retries + 1;
    // A fresh context: the caller's context object may be shared with other requests.
    const context = new HttpContext();
    for (const key of original.context.keys()) context.set(key, original.context.get(key));
    context.set(TOKEN_REFRESH_RETRY_COUNT, attempt);
    if (this.#events.observed) this.#events.next({ type: 'requestRetried', request: original, attempt });
    return this.#send(original, next, token, attempt, epoch, context);
  }

  /** Waits for `inFlight` to end, then goes on with `then(outcome)`. */
  #wait<T>(inFlight: InFlight, then: (outcome: RefreshOutcome) => Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) =>
      // Gone already, though not yet unsubscribed here: a finalizer of the caller's, run before ours,
      // ended the refresh (a login on cancel). A caller that left sends nothing.
      inFlight.settled.pipe(switchMap((outcome) => (subscriber.closed ? EMPTY : then(outcome)))).subscribe(subscriber),
    );
  }

  /** The refresh in flight, or a new one, for `trigger`'s 401 or `refresh()`: somebody needs its token now. */
  #join(trigger: HttpRequest<unknown> | null): InFlight {
    // No longer ahead of expiry: its failure is theirs to see.
    if (this.#inFlight) this.#inFlight.ahead = false;
    return this.#inFlight ?? this.#start(trigger);
  }

  #start(trigger: HttpRequest<unknown> | null, ahead = false): InFlight {
    // A subject of its own per refresh, so a refresh started from inside the end of the previous
    // one (a repeat failing again at once) can never hand its outcome to older waiters.
    const outcome = new BehaviorSubject<RefreshOutcome | null>(null);
    const settled = outcome.pipe(
      filter((value) => value !== null),
      take(1),
    );
    const inFlight = { outcome, settled, call: new Subscription(), ahead };
    this.#inFlight = inFlight;
    this.#refreshing.set(true);
    this.emit({ type: 'refreshStarted', request: trigger, ...(ahead && { ahead }) });
    const run = this.#refreshCall.run();
    const call = this.#plugin?.refresh?.(run) ?? run;
    inFlight.call.add(call.subscribe((result) => this.#end(inFlight, result)));
    return inFlight;
  }

  /**
   * The one place where a refresh ends: with its call's `result`, the application `destroyed`, or
   * neither (the app or another tab set the token meanwhile). The lock is free first, so a 401 met
   * meanwhile (a callback's request, a repeat) starts a new refresh; the waiters go on last, with the
   * token as it is then (a callback may have replaced or cleared it).
   */
  #end(inFlight: InFlight, result?: RefreshResult, destroyed?: true): void {
    // Already ended: a setToken inside the re-entry window (from refreshApiCall or extractToken)
    // decided before this answer, which arrived synchronously, could be delivered.
    if (this.#inFlight !== inFlight) return;
    this.#inFlight = null;
    inFlight.call.unsubscribe();
    this.#refreshing.set(false);
    let outcome: RefreshOutcome | undefined;
    if (destroyed) {
      outcome = {
        ok: false,
        error: new TokenRefreshError(
          'Destroyed',
          typeof ngDevMode !== 'undefined' &&
            ngDevMode &&
            'the application was destroyed while the refresh was in flight',
        ),
      };
    } else if (result?.ok) {
      this.#setCurrentToken(result.token, result.expiresAt, true);
      // Callbacks run before the waiters go on: a token stored by onRefreshSuccess is in place for
      // the repeats, and onRefreshFailure can clear the session before callers see their errors.
      this.emit({ type: 'refreshSucceeded' });
      this.#notify(() => this.options.onRefreshSuccess?.(result.token, result.response));
    } else if (result) {
      if (inFlight.ahead) {
        // Ahead of expiry, and nobody needs the new token yet: the current one stays until the server
        // rejects it, and then the usual refresh runs. Requests held meanwhile go out with it.
        this.emit({ type: 'refreshFailed', error: result.error, ahead: true });
      } else {
        this.#setCurrentToken(null, null, false);
        this.emit({ type: 'refreshFailed', error: result.error });
        this.#notify(() => this.options.onRefreshFailure?.(result.error));
        outcome = result;
      }
    }
    const token = this.#current;
    inFlight.outcome.next(
      outcome ??
        (token !== null
          ? { ok: true, token, epoch: this.#epoch }
          : {
              ok: false,
              error: new TokenRefreshError(
                'Cancelled',
                typeof ngDevMode !== 'undefined' && ngDevMode && 'setToken(null) ended the refresh',
              ),
              own: true,
            }),
    );
  }

  /**
   * `fresh`: just issued (a refresh, a sign-in), not put back; `signIn`: the app's own (a sign-in or
   * sign-out), news for the other tabs.
   */
  #setCurrentToken(token: string | null, expiresAt: number | null, fresh: boolean, signIn = false): void {
    this.#current = token;
    this.#expiresAt = token === null ? null : expiresAt;
    this.#token.set(token);
    this.#epoch++;
    this.#plugin?.changed?.(fresh, signIn);
  }

  #setDisabled(disabled: boolean): void {
    this.#disabled = disabled;
    this.changed();
  }
}
