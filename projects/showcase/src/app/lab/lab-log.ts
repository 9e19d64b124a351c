import { type EnvironmentProviders, Injectable, inject, provideEnvironmentInitializer, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { injectTokenRefresh } from 'ngx-token-refresh';

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

/** One call fired by the auth lab and what happened to it. */
export interface LabCall {
  readonly id: number;
  readonly steps: readonly LabStep[];
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

/** How a refresh ended. `failed, token kept`: one ahead of expiry failed, and the still valid token stays. */
export type LabRefreshOutcome = 'pending' | 'refreshed' | 'failed' | 'failed, token kept' | 'token from another tab';

/** One refresh of this tab's token. */
export interface LabRefresh {
  readonly id: number;
  /** When it began (ms since the epoch, this device's clock). */
  readonly at: number;
  readonly cause: LabRefreshCause;
  readonly outcome: LabRefreshOutcome;
}

/** How many refreshes the lab lists (the newest). */
const REFRESHES_SHOWN = 5;

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
  readonly refreshes = this.refreshEntries.asReadonly();
  private readonly due = signal<number | null>(null);
  /**
   * When the next refresh ahead of expiry is due (ms since the epoch, this device's clock), from
   * `refreshScheduled`; `null` when none is planned (no token, one too short-lived, or proactive
   * refresh off).
   */
  readonly nextRefreshAt = this.due.asReadonly();
  private readonly refreshesInBurst = signal(0);
  /**
   * Refreshes of this tab that ended while a call of the current burst was still waiting for its
   * answer: the burst's own, not a refresh ahead of expiry long after it.
   */
  readonly burstRefreshes = this.refreshesInBurst.asReadonly();
  private nextRefreshId = 1;

  constructor() {
    const { events, token } = injectTokenRefresh();
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
          this.endRefresh('refreshed');
          return this.stepWaiting('refresh');
        case 'refreshFailed':
          this.endRefresh(event.ahead ? 'failed, token kept' : 'failed');
          return this.stepWaiting('refresh failed');
        case 'tokenReceived':
          // Cross-tab sync: another tab's refresh ended this tab's wait, without a call of its own;
          // or this tab was idle, and its next calls carry that token.
          if (!event.waiting) return this.addRefresh('another tab refreshed', 'token from another tab');
          this.endRefresh('token from another tab', false);
          return this.stepWaiting('token from another tab');
        default:
          return;
      }
    });
  }

  /** Starts a new burst of `count` calls, numbered from 1; returns their numbers. */
  start(count: number): number[] {
    const ids = Array.from({ length: count }, (_, index) => index + 1);
    this.entries.set(ids.map((id) => ({ id, steps: [], outcome: 'pending' })));
    this.refreshesInBurst.set(0);
    return ids;
  }

  /** Adds a step to call `id` (0, a request that is no lab call, is ignored). */
  step(id: number, step: LabStep, status?: number): void {
    if (id === 0) return;
    this.entries.update((calls) =>
      calls.map((call) =>
        call.id === id
          ? {
              ...call,
              steps: [...call.steps, step],
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
  }

  private addRefresh(cause: LabRefreshCause, outcome: LabRefreshOutcome): void {
    const refresh: LabRefresh = { id: this.nextRefreshId++, at: Date.now(), cause, outcome };
    this.refreshEntries.update((refreshes) => [refresh, ...refreshes].slice(0, REFRESHES_SHOWN));
  }

  /**
   * The refresh in flight ended with `outcome`. `call`: this tab made the refresh call, so it counts
   * for the burst if one of its calls is still waiting (a refresh ends before its waiters go on).
   */
  private endRefresh(outcome: LabRefreshOutcome, call = true): void {
    this.refreshEntries.update((refreshes) =>
      refreshes.map((refresh, index) =>
        index === 0 && refresh.outcome === 'pending' ? { ...refresh, outcome } : refresh,
      ),
    );
    if (call && this.entries().some((entry) => entry.outcome === 'pending')) {
      this.refreshesInBurst.update((count) => count + 1);
    }
  }

  /** The refresh ended: every call waiting for it (last step queued or held) gets the outcome. */
  private stepWaiting(step: LabStep): void {
    this.entries.update((calls) =>
      calls.map((call) => {
        const last = call.steps.at(-1);
        return last === 'queued' || last === 'held' ? { ...call, steps: [...call.steps, step] } : call;
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
