import {
  HttpContext,
  HttpErrorResponse,
  type HttpEvent,
  type HttpHandlerFn,
  type HttpRequest,
} from '@angular/common/http';
import { DOCUMENT, DestroyRef, EnvironmentInjector, inject, signal } from '@angular/core';
import {
  BehaviorSubject,
  EMPTY,
  Observable,
  Subject,
  Subscription,
  catchError,
  defer,
  filter,
  of,
  switchMap,
  take,
  tap,
  throwError,
} from 'rxjs';

import { injectCallbackRunner } from '../internal/inject-callback-runner';
import { createTokenUrlPolicy, readBaseHref } from './create-token-url-policy';
import { RefreshCall, type RefreshResult, expiresAtFrom } from './refresh-call';
import type { RefreshCoordinator, RefreshCoordinatorFactory } from './refresh-coordinator';
import type { RefreshScheduler, RefreshSchedulerFactory } from './refresh-scheduler';
import type { RenderSession, RenderSessionFactory } from './render-session';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { SKIP_TOKEN_REFRESH } from './skip-token-refresh';
import { TokenRefreshError } from './token-refresh-error';
import { warnTokenNotAttached } from './warn-token-not-attached';
import { warnUnmanagedOrigin } from './warn-unmanaged-origin';
import type { TokenRefreshEvent } from './token-refresh-event';
import type { IdleWatch, IdleWatchFactory } from './idle-watch';
import type { TokenTransport, TokenTransportFactory } from './token-transport';
import { TOKEN_REFRESH_RETRY_COUNT } from './token-refresh-retry-count';
import type { TokenRefreshRef } from './token-refresh-ref';

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
  /** The gate's subscription to the refresh call; ending the refresh drops the call. */
  readonly call: Subscription;
  /**
   * Started ahead of expiry, and nothing needs its token yet: if it fails, the current token (still
   * valid) stays, and nobody is told.
   */
  ahead: boolean;
}

/**
 * What ended a refresh, as `#end` takes it: its call's `result`, the application `destroyed`, or
 * neither: the app or another tab set the token meanwhile.
 */
interface RefreshEnd {
  readonly inFlight: InFlight;
  readonly result?: RefreshResult;
  readonly destroyed?: true;
}

/** One request on its way through the gate. */
interface Attempt {
  /** The request as the caller made it. Events show this one, so they never carry a token. */
  readonly original: HttpRequest<unknown>;
  /** What goes out before the token is written: the original, or a copy counting the repeats. */
  readonly request: HttpRequest<unknown>;
  readonly next: HttpHandlerFn;
  /** How often the request has been repeated so far. */
  readonly retries: number;
}

/** The optional parts of a gate, registered by features; an application without them ships none. */
export interface GateFeatures {
  /** Takes turns with other tabs (`withCrossTabSync`). */
  readonly coordinator?: RefreshCoordinatorFactory | null;
  /** Refreshes ahead of expiry (`withProactiveRefresh`). */
  readonly scheduler?: RefreshSchedulerFactory | null;
  /** Takes a server render's session from its request, and hands it to the browser (`withServerSession`). */
  readonly session?: RenderSessionFactory | null;
  /** Carries the token its own way, with a proof per request (`withDPoP`). */
  readonly transport?: TokenTransportFactory | null;
  /** Ends the session when nobody has been active for too long (`withIdleTimeout`). */
  readonly idle?: IdleWatchFactory | null;
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
 */
export class RefreshGate {
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
  readonly #injector = inject(EnvironmentInjector);
  /** Runs the app's callbacks: a throw is reported, and never strands the queue. */
  readonly #notify = injectCallbackRunner();
  readonly #refreshCall: RefreshCall;
  /** Takes turns with other tabs (`withCrossTabSync`), or `null`. */
  readonly #coordinator: RefreshCoordinator | null;
  /** Refreshes ahead of expiry (`withProactiveRefresh`), or `null`. */
  readonly #scheduler: RefreshScheduler | null;
  /** The session of a server render (`withServerSession`), or `null`. */
  readonly #session: RenderSession | null;
  /** Carries the token with a proof per request (`withDPoP`), or `null`: `setAuthHeader` does. */
  readonly #transport: TokenTransport | null;
  /** Ends the session after the idle time (`withIdleTimeout`), or `null`. */
  readonly #idle: IdleWatch | null;
  /** `disable()`: the interceptor lets every request and response by untouched. */
  #disabled = false;

  /** What `injectTokenRefresh()` hands out. */
  readonly ref: TokenRefreshRef = {
    isRefreshing: this.#refreshing.asReadonly(),
    token: this.#token.asReadonly(),
    events: this.#events.asObservable(),
    refresh: () => this.refresh(),
    setToken: (token, options) => this.setToken(token, !options?.restored, expiresAtFrom(options?.expiresIn)),
    disable: () => this.#setDisabled(true),
    enable: () => this.#setDisabled(false),
  };

  /** Needs an injection context: the gate lives as long as the injector that creates it. */
  constructor(
    readonly options: ResolvedTokenRefreshOptions,
    features: GateFeatures = {},
  ) {
    this.#refreshCall = new RefreshCall(options, this.#injector);
    this.#transport = features.transport?.() ?? null;
    const document = inject(DOCUMENT, { optional: true });
    this.#allows = createTokenUrlPolicy(options.allowedOrigins, () => readBaseHref(document));
    inject(DestroyRef).onDestroy(() => this.#destroy());
    this.#coordinator =
      features.coordinator?.(
        {
          receive: (token, expiresAt) => this.#receive(token, expiresAt),
          signOut: () => this.#signOut(),
          token: () => this.#current,
          expiresAt: () => this.#expiresAt,
          beforeSharing: (token) => this.#transport?.share(token) ?? Promise.resolve(),
        },
        options,
      ) ?? null;
    this.#scheduler =
      features.scheduler?.({
        token: () => this.#current,
        expiresAt: () => this.#expiresAt,
        disabled: () => this.#disabled,
        refresh: (ahead) =>
          void (this.#inFlight || this.#disabled || this.#idle?.resting() || this.#start(null, ahead)),
        emit: (event) => this.#emit(event),
      }) ?? null;
    this.#idle =
      features.idle?.({
        token: () => this.#current,
        timeOut: () => {
          // Not news for the other tabs: each ends its own session at the same deadline.
          this.setToken(null, false);
          this.#emit({ type: 'idleTimeout' });
        },
        // Somebody is back after the warning: refreshes ahead of expiry may run again.
        resumed: () => this.#scheduler?.plan(false),
      }) ?? null;
    // Last: in the browser it may put the render's token in place at once.
    this.#session =
      features.session?.({
        token: () => this.#current,
        restore: (token) => this.setToken(token, false),
        disable: () => this.#setDisabled(true),
      }) ?? null;
  }

  intercept(request: HttpRequest<unknown>, next: HttpHandlerFn): Observable<HttpEvent<unknown>> {
    // has() first: get() would store the default in every request's context.
    const context = request.context;
    if (this.#refreshCall.isSending) {
      // The refresh request itself: during a server render, the render's session sends it; with a
      // transport of its own (a proof), the transport does.
      if (this.#session) return this.#session.sendRefresh(request, next, this.#allows(request.url));
      return this.#transport ? this.#transport.sendRefresh(request, next) : next(request);
    }
    // A tab that slept through its idle deadline ends the session before anything goes out.
    this.#idle?.check();
    if (this.#disabled || (context.has(SKIP_TOKEN_REFRESH) && context.get(SKIP_TOKEN_REFRESH))) {
      // A transport still sends what `withToken` marked for it (a sign-in's proof).
      return this.#transport ? this.#transport.sendSkipped(request, next) : next(request);
    }
    if (!this.#allows(request.url)) {
      return typeof ngDevMode !== 'undefined' && ngDevMode
        ? next(request).pipe(
            tap({
              error: (error) => warnUnmanagedOrigin(error, request, this.options.refreshOnStatus, this.#warned),
            }),
          )
        : next(request);
    }
    const attempt: Attempt = { original: request, request, next, retries: 0 };
    const arrival = this.#epoch;
    const inFlight = this.#inFlight;
    if (!inFlight) return this.#send(attempt, this.options.attachToken ? this.#current : null, arrival);
    // Its token is known to be rejected: wait for the new one instead of paying for a certain 401.
    // After a failed refresh it goes out as it came (it may need no token) with its arrival epoch,
    // so a 401 then reaches the caller without another refresh.
    if (this.#events.observed) this.#events.next({ type: 'requestHeld', request });
    return this.#wait(inFlight, (outcome) =>
      outcome.ok ? this.#send(attempt, outcome.token, outcome.epoch) : this.#send(attempt, null, arrival),
    );
  }

  refresh(): Observable<string> {
    return defer(() =>
      this.#wait(this.#join(null), (outcome) => (outcome.ok ? of(outcome.token) : throwError(() => outcome.error))),
    );
  }

  /**
   * The app's token (a login) or `null` (a logout). `fresh: false` (the public `{ restored: true }`):
   * a token put back, not a new one, so no clock is read from it and other tabs are not told.
   * `expiresAt`: when it expires (device time, ms), if its issuer said.
   */
  setToken(token: string | null, fresh = true, expiresAt: number | null = null): void {
    const inFlight = this.#inFlight;
    // The app's own new token is a sign-in: somebody is there.
    this.#setCurrentToken(token, fresh, expiresAt, fresh);
    // The app decided (a login, a logout) while a refresh ran: its answer no longer matters. End it
    // without callbacks; waiters repeat with the app's token, or get their own error after a logout.
    if (inFlight) this.#end({ inFlight });
    if (fresh) this.#coordinator?.announce(token, this.#expiresAt);
  }

  /**
   * `request` with `token` written by `setAuthHeader`, if its URL may carry a token; else unchanged.
   * With a transport, `request` is marked for it instead (the proof is signed when it is sent), and
   * `null` asks for a proof alone, which carries no secret and so goes wherever the request goes.
   */
  withToken(request: HttpRequest<unknown>, token: string | null): HttpRequest<unknown> {
    if (token !== null && !this.#allows(request.url)) return request;
    if (this.#transport) return this.#transport.mark(request, token);
    return token === null ? request : this.options.setAuthHeader(request, token);
  }

  /** Sends `attempt` with `token` (none for `null`); `epoch` is the token state it goes out in. */
  #send(attempt: Attempt, token: string | null, epoch: number): Observable<HttpEvent<unknown>> {
    const sent =
      token === null
        ? // A transport may still sign it (withDPoP's DPOP_PROOF on a sign-in of the app's own).
          this.#transport
          ? this.#transport.sendSkipped(attempt.request, attempt.next)
          : attempt.next(attempt.request)
        : this.#transport
          ? this.#transport.send(attempt.request, token, attempt.next)
          : attempt.next(this.options.setAuthHeader(attempt.request, token));
    // Out of retries (a repeat, by default): nothing left to catch, so no operator to pay for.
    if (attempt.retries >= this.options.maxRetryCount) return sent;
    return sent.pipe(
      catchError((error: unknown) => {
        if (
          !(error instanceof HttpErrorResponse) ||
          !this.options.refreshOnStatus.includes(error.status) ||
          this.#disabled
        ) {
          return throwError(() => error);
        }
        // Sent without a token, and the token has not changed since (the epoch did not move): if the
        // gate holds one, it held it then, and the 401 is likely just for the missing token.
        if (typeof ngDevMode !== 'undefined' && ngDevMode && token === null && epoch === this.#epoch) {
          warnTokenNotAttached(attempt.request, error.status, this.#current, this.options.setAuthHeader, this.#warned);
        }
        return this.#recover(attempt, epoch, error);
      }),
    );
  }

  #recover(attempt: Attempt, sentEpoch: number, error: HttpErrorResponse): Observable<HttpEvent<unknown>> {
    // Ended for idleness: the 401 is the answer until the next sign-in.
    if (this.#idle?.timedOut()) return throwError(() => error);
    if (!this.#inFlight && this.#epoch !== sentEpoch) {
      // The token changed after this request left, so its 401 is about an older token: repeat it
      // with the current one, or, if the last refresh failed (no token), let the caller have it.
      const token = this.#current;
      return token !== null ? this.#repeat(attempt, token, this.#epoch) : throwError(() => error);
    }
    if (this.#events.observed) {
      this.#events.next({ type: 'requestQueued', request: attempt.original, status: error.status });
    }
    return this.#wait(this.#join(attempt.original), (outcome) =>
      outcome.ok
        ? this.#repeat(attempt, outcome.token, outcome.epoch)
        : throwError(() => (outcome.own ? error : outcome.error)),
    );
  }

  #repeat(attempt: Attempt, token: string, epoch: number): Observable<HttpEvent<unknown>> {
    const retries = attempt.retries + 1;
    // A fresh context: the caller's context object may be shared with other requests.
    const context = new HttpContext();
    for (const key of attempt.original.context.keys()) context.set(key, attempt.original.context.get(key));
    context.set(TOKEN_REFRESH_RETRY_COUNT, retries);
    if (this.#events.observed)
      this.#events.next({ type: 'requestRetried', request: attempt.original, attempt: retries });
    const repeat = {
      original: attempt.original,
      request: attempt.original.clone({ context }),
      next: attempt.next,
      retries,
    };
    return this.#send(repeat, token, epoch);
  }

  /** Waits for `inFlight` to end, then goes on with `then(outcome)`. */
  #wait<T>(inFlight: InFlight, then: (outcome: RefreshOutcome) => Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) =>
      inFlight.outcome
        .pipe(
          filter((outcome) => outcome !== null),
          take(1),
          // Gone already, though not yet unsubscribed here: a finalizer of the caller's, run before
          // ours, ended the refresh (a login on cancel). A caller that left sends nothing.
          switchMap((outcome) => (subscriber.closed ? EMPTY : then(outcome))),
        )
        .subscribe(subscriber),
    );
  }

  /** The refresh in flight, or a new one, for `trigger`'s 401 or `refresh()`: somebody needs its token now. */
  #join(trigger: HttpRequest<unknown> | null): InFlight {
    const inFlight = this.#inFlight;
    if (!inFlight) return this.#start(trigger);
    // No longer ahead of expiry: its failure is theirs to see.
    inFlight.ahead = false;
    return inFlight;
  }

  #start(trigger: HttpRequest<unknown> | null, ahead = false): InFlight {
    // A subject of its own per refresh, so a refresh started from inside the end of the previous
    // one (a repeat failing again at once) can never hand its outcome to older waiters.
    const inFlight: InFlight = {
      outcome: new BehaviorSubject<RefreshOutcome | null>(null),
      call: new Subscription(),
      ahead,
    };
    this.#inFlight = inFlight;
    this.#refreshing.set(true);
    this.#scheduler?.started();
    this.#emit(
      ahead ? { type: 'refreshStarted', request: trigger, ahead } : { type: 'refreshStarted', request: trigger },
    );
    // Ended for idleness: only a new sign-in brings a session back, never a refresh.
    const run = this.#idle?.timedOut()
      ? of<RefreshResult>({
          ok: false,
          error: new TokenRefreshError(
            'IdleTimeout',
            typeof ngDevMode !== 'undefined' && ngDevMode && 'the session ended for idleness; sign in again',
          ),
        })
      : this.#refreshCall.run();
    inFlight.call.add(
      (this.#coordinator?.coordinate(run) ?? run).subscribe((result) => this.#end({ inFlight, result })),
    );
    return inFlight;
  }

  /**
   * The one place where a refresh ends. The lock is free first, so a 401 met meanwhile (a callback's
   * request, a repeat) starts a new refresh; the waiters go on last, with the token as it is then (a
   * callback may have replaced or cleared it).
   */
  #end({ inFlight, result, destroyed }: RefreshEnd): void {
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
      this.#setCurrentToken(result.token, true, result.expiresAt);
      // Callbacks run before the waiters go on: a token stored by onRefreshSuccess is in place for
      // the repeats, and onRefreshFailure can clear the session before callers see their errors.
      this.#emit({ type: 'refreshSucceeded' });
      this.#notify(() => this.options.onRefreshSuccess?.(result.token, result.response));
    } else if (result) {
      this.#scheduler?.failed();
      if (inFlight.ahead) {
        // Ahead of expiry, and nobody needs the new token yet: the current one stays until the server
        // rejects it, and then the usual refresh runs. Requests held meanwhile go out with it.
        this.#emit({ type: 'refreshFailed', error: result.error, ahead: true });
      } else {
        this.#setCurrentToken(null, false);
        this.#emit({ type: 'refreshFailed', error: result.error });
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

  /** Another tab brought a token: it replaces this tab's, and ends a refresh waiting for its turn. */
  #receive(token: string, expiresAt: number | null): void {
    if (token === this.#current) return;
    const inFlight = this.#inFlight;
    this.#setCurrentToken(token, true, expiresAt);
    this.#emit({ type: 'tokenReceived', waiting: inFlight !== null });
    if (inFlight) this.#end({ inFlight });
  }

  /** Another tab signed out: as a logout here, unless there is nothing to end. */
  #signOut(): boolean {
    if (this.#current === null && !this.#inFlight) return false;
    this.setToken(null, false);
    this.#emit({ type: 'signedOutElsewhere' });
    return true;
  }

  /** `fresh`: just issued (a refresh, a sign-in), not put back; for the scheduler's clock. */
  #setCurrentToken(token: string | null, fresh: boolean, expiresAt: number | null = null, signIn = false): void {
    this.#current = token;
    this.#expiresAt = token === null ? null : expiresAt;
    this.#token.set(token);
    this.#epoch++;
    this.#idle?.tokenChanged(token, signIn);
    this.#scheduler?.plan(fresh);
  }

  #setDisabled(disabled: boolean): void {
    this.#disabled = disabled;
    this.#scheduler?.plan(false);
  }

  /** Ends a refresh in flight when the application is destroyed, so no caller is left waiting. */
  #destroy(): void {
    if (this.#inFlight) this.#end({ inFlight: this.#inFlight, destroyed: true });
    this.#events.complete();
  }

  #emit(event: TokenRefreshEvent): void {
    if (this.#events.observed) this.#events.next(event);
  }
}
