import { Injectable, signal } from '@angular/core';
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
 * The auth lab's timeline: each call's steps, from the library's event stream (queued, held,
 * refresh) and from `labCallTracker` (each attempt sent, each answer).
 */
@Injectable({ providedIn: 'root' })
export class LabLog {
  private readonly entries = signal<readonly LabCall[]>([]);
  /** Every call of the current burst, in the order fired. */
  readonly calls = this.entries.asReadonly();

  constructor() {
    const { events } = injectTokenRefresh();
    events.pipe(takeUntilDestroyed()).subscribe((event) => {
      switch (event.type) {
        case 'requestQueued':
          return this.step(event.request.context.get(LAB_CALL), 'queued');
        case 'requestHeld':
          return this.step(event.request.context.get(LAB_CALL), 'held');
        case 'refreshSucceeded':
          return this.stepWaiting('refresh');
        case 'refreshFailed':
          return this.stepWaiting('refresh failed');
        case 'tokenReceived':
          // Cross-tab sync: another tab's refresh ended this tab's wait, without a call of its own.
          return event.waiting ? this.stepWaiting('token from another tab') : undefined;
        default:
          return;
      }
    });
  }

  /** Starts a new burst of `count` calls, numbered from 1; returns their numbers. */
  start(count: number): number[] {
    const ids = Array.from({ length: count }, (_, index) => index + 1);
    this.entries.set(ids.map((id) => ({ id, steps: [], outcome: 'pending' })));
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
