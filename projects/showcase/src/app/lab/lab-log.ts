import { HttpErrorResponse } from '@angular/common/http';
import {
  type EnvironmentProviders,
  Injectable,
  type Signal,
  computed,
  inject,
  provideEnvironmentInitializer,
  signal,
} from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { injectTokenRefresh, parseJwtClaims } from 'ngx-token-refresh';

import { LAB_CALL } from './lab-call';

/** One step in a lab call's life, as shown on its timeline. */
export type LabStep =
  | 'sent'
  | '401'
  | 'queued'
  | 'held'
  | 'refresh'
  | 'refresh failed'
  | 'token from another tab'
  | 'repeated'
  | '200'
  | 'error';

/** A step of a lab call and when it happened (ms since the epoch, this device's clock). */
export interface LabMark {
  readonly step: LabStep;
  readonly at: number;
}

/** One call fired by the auth lab and what happened to it. */
export interface LabCall {
  readonly id: number;
  readonly steps: readonly LabMark[];
  readonly outcome: 'pending' | 'ok' | 'failed';
  /** Status of the last answer (0 for a network error), once there is one. */
  readonly status?: number;
}

/**
 * Why this tab's token changed hands, as the lab's list of refreshes says it: a refresh started
 * ahead of expiry (`withProactiveRefresh`), one started by a call's 401, or one started without a
 * call: with no token, `authGuard`'s restoreSession when a tab starts; with a token, the refresh
 * `withProactiveRefresh` starts for a token that expired while the page was hidden or the device
 * asleep (the showcase asks for no other). Or a token that another tab refreshed (cross-tab sync).
 */
export type LabRefreshCause =
  'ahead of expiry' | 'after a 401' | 'restoring the session' | 'expired while away' | 'another tab refreshed';

/**
 * How a refresh ended. `failed, token kept`: one ahead of expiry failed, and the still valid token
 * stays. `no session`: restoring the session found none (the server answered 401: no refresh cookie,
 * or one it no longer accepts), which is no failure: the tab was simply not signed in.
 */
export type LabRefreshOutcome =
  'pending' | 'refreshed' | 'failed' | 'failed, token kept' | 'no session' | 'token from another tab';

/** One refresh of this tab's token. */
export interface LabRefresh {
  readonly id: number;
  /** When it began (ms since the epoch, this device's clock). */
  readonly at: number;
  readonly cause: LabRefreshCause;
  readonly outcome: LabRefreshOutcome;
  /** When it ended (ms since the epoch), once it has. */
  readonly endedAt?: number;
}

/** The current burst, for the timeline's axis and its marker of the token's expiry. */
export interface LabBurst {
  /** When it was fired (ms since the epoch). */
  readonly startedAt: number;
  /**
   * When the token it was fired with expired or will expire (ms since the epoch): the lab's
   * "expire now", or the token's `exp`; `null` without a token.
   */
  readonly tokenExpiresAt: number | null;
  /** How many refresh calls had been made before it (as counted by the caller of `start`). */
  readonly refreshCallsBefore: number;
}

/** How long after a burst the timeline still draws this tab's refreshes (one ahead of expiry, say). */
export const LAB_TIMELINE_TAIL_MS = 15_000;

/** How many refreshes the lab lists (the newest). */
const REFRESHES_SHOWN = 5;
/** How many refreshes the lab remembers, for the timeline of the current burst. */
const REFRESHES_KEPT = 50;

/**
 * The auth lab's log: each call's steps, from the library's event stream (queued, held, refresh)
 * and from `labCallTracker` (each attempt sent, each answer); this tab's last refreshes, each with
 * its cause; and when the next refresh ahead of expiry is due. It listens from the start of the app
 * (`provideLabLog()`): the sign-in announces the first refresh due before the lab page opens.
 */
@Injectable({ providedIn: 'root' })
export class LabLog {
  private readonly entries = signal<readonly LabCall[]>([]);
  /** Every call of the current burst, in the order fired. */
  readonly calls = this.entries.asReadonly();
  private readonly refreshEntries = signal<readonly LabRefresh[]>([]);
  /** This tab's last refreshes, newest first. */
  readonly refreshes = computed(() => this.refreshEntries().slice(0, REFRESHES_SHOWN));
  private readonly currentBurst = signal<LabBurst | null>(null);
  /** The burst on the timeline, or `null` before the first one (or after `clear()`). */
  readonly burst = this.currentBurst.asReadonly();
  /**
   * The refreshes drawn on the burst's timeline, oldest first: one in flight when it was fired, and
   * those that began up to LAB_TIMELINE_TAIL_MS after it.
   */
  readonly burstRefreshList = computed(() => {
    const burst = this.currentBurst();
    if (!burst) return [];
    return this.refreshEntries()
      .filter(
        (refresh) =>
          (refresh.endedAt ?? Infinity) >= burst.startedAt && refresh.at <= burst.startedAt + LAB_TIMELINE_TAIL_MS,
      )
      .reverse();
  });
  private readonly expiredByLabAt = signal<number | null>(null);
  /**
   * When the lab made the backend reject the token in hand (its "expire now"), until a refresh or
   * another tab replaces it; `null` otherwise. The next call meets a 401 and refreshes, ahead of any
   * refresh planned for the token's own expiry.
   */
  readonly tokenExpiredByLabAt = this.expiredByLabAt.asReadonly();
  private readonly due = signal<number | null>(null);
  /**
   * When the next refresh ahead of expiry is due (ms since the epoch, this device's clock), from
   * `refreshScheduled`; `null` when none is planned (no token, one too short-lived, or proactive
   * refresh off).
   */
  readonly nextRefreshAt = this.due.asReadonly();
  private readonly callsMade = signal(0);
  /**
   * Refresh calls this tab made since the app started, counted when they end (with cross-tab sync a
   * refresh may wait for another tab's and end with its token, without a call of its own).
   */
  readonly refreshCallsMade = this.callsMade.asReadonly();
  private readonly refreshesInBurst = signal(0);
  /**
   * Refreshes of this tab that ended while a call of the current burst was still waiting for its
   * answer: the burst's own, not a refresh ahead of expiry long after it.
   */
  readonly burstRefreshes = this.refreshesInBurst.asReadonly();
  private nextRefreshId = 1;
  private readonly token: Signal<string | null>;

  constructor() {
    const { events, token } = injectTokenRefresh();
    this.token = token;
    events.pipe(takeUntilDestroyed()).subscribe((event) => {
      switch (event.type) {
        case 'requestQueued':
          return this.step(event.request.context.get(LAB_CALL), 'queued');
        case 'requestHeld':
          return this.step(event.request.context.get(LAB_CALL), 'held');
        case 'refreshScheduled':
          return this.due.set(event.at);
        case 'refreshStarted':
          return this.addRefresh(
            event.ahead
              ? 'ahead of expiry'
              : event.request
                ? 'after a 401'
                : token() === null
                  ? 'restoring the session'
                  : 'expired while away',
            'pending',
          );
        case 'refreshSucceeded':
          this.callsMade.update((count) => count + 1);
          this.endRefresh('refreshed');
          return this.stepWaiting('refresh');
        case 'refreshFailed':
          this.callsMade.update((count) => count + 1);
          this.endRefresh(event.ahead ? 'failed, token kept' : this.isNoSession(event.error) ? 'no session' : 'failed');
          return this.stepWaiting('refresh failed');
        case 'tokenReceived':
          // Cross-tab sync: another tab's refresh ended this tab's wait, without a call of its own;
          // or this tab was idle, and its next calls carry that token.
          if (!event.waiting) {
            this.expiredByLabAt.set(null);
            return this.addRefresh('another tab refreshed', 'token from another tab');
          }
          this.endRefresh('token from another tab', false);
          return this.stepWaiting('token from another tab');
        default:
          return;
      }
    });
  }

  /**
   * Starts a new burst of `count` calls, numbered from 1; returns their numbers. `refreshCalls`: the
   * refresh calls made so far, so that a counter can show those made since.
   */
  start(count: number, refreshCalls = 0): number[] {
    const ids = Array.from({ length: count }, (_, index) => index + 1);
    this.entries.set(ids.map((id) => ({ id, steps: [], outcome: 'pending' })));
    this.refreshesInBurst.set(0);
    const token = this.token();
    const exp = Number(parseJwtClaims(token)?.['exp']) * 1000;
    const expiries = [this.expiredByLabAt(), Number.isFinite(exp) ? exp : null].filter((at) => at !== null);
    this.currentBurst.set({
      startedAt: Date.now(),
      tokenExpiresAt: token === null || expiries.length === 0 ? null : Math.min(...expiries),
      refreshCallsBefore: refreshCalls,
    });
    return ids;
  }

  /**
   * The lab made the backend reject the current token now, ahead of its `exp`: the timeline marks
   * the token's expiry there (until the token is replaced).
   */
  tokenExpiredByLab(): void {
    this.expiredByLabAt.set(Date.now());
  }

  /** Adds a step to call `id` (0, a request that is no lab call, is ignored). */
  step(id: number, step: LabStep, status?: number): void {
    if (id === 0) return;
    this.entries.update((calls) =>
      calls.map((call) =>
        call.id === id
          ? {
              ...call,
              steps: [...call.steps, { step, at: Date.now() }],
              status: status ?? call.status,
              outcome: step === '200' ? 'ok' : call.outcome,
            }
          : call,
      ),
    );
  }

  /** Marks call `id` as finally failed (its caller got an error). */
  fail(id: number, status: number): void {
    this.entries.update((calls) =>
      calls.map((call) => (call.id === id ? { ...call, outcome: 'failed', status } : call)),
    );
  }

  /** Clears the timeline. */
  clear(): void {
    this.entries.set([]);
    this.currentBurst.set(null);
  }

  private addRefresh(cause: LabRefreshCause, outcome: LabRefreshOutcome): void {
    const at = Date.now();
    // One that is over as it begins (a token from another tab, taken while idle) ends at once.
    const refresh: LabRefresh = {
      id: this.nextRefreshId++,
      at,
      cause,
      outcome,
      ...(outcome === 'pending' ? {} : { endedAt: at }),
    };
    this.refreshEntries.update((refreshes) => [refresh, ...refreshes].slice(0, REFRESHES_KEPT));
  }

  /**
   * The refresh in flight ended with `outcome`. `call`: this tab made the refresh call, so it counts
   * for the burst if one of its calls is still waiting (a refresh ends before its waiters go on).
   */
  private endRefresh(outcome: LabRefreshOutcome, call = true): void {
    this.refreshEntries.update((refreshes) =>
      refreshes.map((refresh, index) =>
        index === 0 && refresh.outcome === 'pending' ? { ...refresh, outcome, endedAt: Date.now() } : refresh,
      ),
    );
    // A new token (or none): the lab's "expire now" was about the old one.
    if (outcome !== 'failed, token kept') this.expiredByLabAt.set(null);
    if (call && this.entries().some((entry) => entry.outcome === 'pending')) {
      this.refreshesInBurst.update((count) => count + 1);
    }
  }

  /** Whether the refresh in flight restores the session, and the server said there is none (401). */
  private isNoSession(error: unknown): boolean {
    const refresh = this.refreshEntries()[0];
    return (
      refresh?.outcome === 'pending' &&
      refresh.cause === 'restoring the session' &&
      error instanceof HttpErrorResponse &&
      error.status === 401
    );
  }

  /** The refresh ended: every call waiting for it (last step queued or held) gets the outcome. */
  private stepWaiting(step: LabStep): void {
    this.entries.update((calls) =>
      calls.map((call) => {
        const last = call.steps.at(-1)?.step;
        return last === 'queued' || last === 'held'
          ? { ...call, steps: [...call.steps, { step, at: Date.now() }] }
          : call;
      }),
    );
  }
}

/**
 * Starts the auth lab's log with the application, so it hears every event from the sign-in on (demo:
 * an application that logs the library's events would subscribe just as early).
 */
export function provideLabLog(): EnvironmentProviders {
  return provideEnvironmentInitializer(() => void inject(LabLog));
}
