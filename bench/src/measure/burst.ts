import { API_URL } from '../harness/fake-backend';
import type { BenchApp } from '../harness/bench-app';
import { fullGc, usedHeap } from '../harness/heap';
import { Tally, cpuMicros, nextMacrotask, within } from './tally';

/** One burst: N requests in flight, all failing with 401, one refresh answer, everything settled. */
export interface BurstSample {
  readonly n: number;
  /** Milliseconds from the refresh answer until the last request settled (null if some never did). */
  readonly settleMs: number | null;
  /** CPU time of the process over the same span (ms): what a busy machine disturbs less. */
  readonly settleCpuMs: number | null;
  /** Refresh calls in total (1 is right). */
  readonly refreshCalls: number;
  /** 401 responses the backend sent (N is right: each request once). */
  readonly unauthorized: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Requests that had not settled `hangMs` after the refresh answer. */
  readonly pending: number;
  /**
   * Heap in use at its highest reading (after sending, after the 401s, after settling) above the
   * start; meaningful when the burst ran with `measureHeap`.
   */
  readonly peakHeapBytes: number;
  /** Live heap while all N wait for the refresh (after full GCs), above the start; with `measureHeap`. */
  readonly queuedHeapBytes: number;
  readonly measuredHeap: boolean;
}

/**
 * Runs one burst on `app`: the server expires the token; N requests go out and are held by the
 * backend; they all come back 401 at once (the first starts the refresh, which the backend holds);
 * then the refresh answers and the clock runs until every request has settled.
 */
export async function runBurst(
  app: BenchApp,
  n: number,
  options: { hangMs: number; failRefresh?: boolean; measureHeap?: boolean },
): Promise<BurstSample> {
  // Heap readings need full collections around the burst. Timed bursts run without forced GCs: after
  // one, V8 shrinks the young generation and returns memory on helper threads, which slows what
  // follows by several times. They run in the warm steady state of back-to-back bursts instead.
  const heap = options.measureHeap ?? false;
  const { backend, http } = app;
  const refreshesBefore = backend.refreshCalls;
  const unauthorizedBefore = backend.unauthorized;
  backend.expire();
  backend.failRefresh = options.failRefresh ?? false;
  backend.holdApi = true;
  backend.holdRefresh = true;

  if (heap) fullGc();
  const start = usedHeap();
  const tally = new Tally(n);
  for (let i = 0; i < n; i++) http.get(API_URL).subscribe(tally.observer);
  const afterSend = usedHeap();
  backend.holdApi = false;
  backend.flush();
  const afterUnauthorized = usedHeap();
  if (heap) fullGc();
  const queued = usedHeap() - start;

  // A minor collection (a scavenge of the young generation) before the clock starts, so the timed
  // window pays for what settling allocates, not for the garbage of sending and of the 401s. Without
  // it a scavenge landed in the window or not by where the young generation happened to fill up, so
  // at N = 1,000 the contender that allocated less before the answer and more after it paid ~8 ms
  // more per burst (FINDINGS.md, issue 37). Minor only: a full collection shrinks the young
  // generation and slows what follows.
  if (!heap) (globalThis as { gc?: (options: object) => void }).gc?.({ type: 'minor', execution: 'sync' });
  const releasedCpu = cpuMicros();
  const releasedAt = performance.now();
  backend.releaseRefresh();
  const settled = tally.settled === n || (await within(tally.finished, options.hangMs));
  const afterSettle = usedHeap();
  // Late work (a second refresh answered in a microtask, repeats after it) is counted, not timed.
  await nextMacrotask();
  backend.holdRefresh = false;
  backend.failRefresh = false;

  return {
    n,
    settleMs: settled ? tally.settledAt - releasedAt : null,
    settleCpuMs: settled ? (tally.settledCpu - releasedCpu) / 1000 : null,
    refreshCalls: backend.refreshCalls - refreshesBefore,
    unauthorized: backend.unauthorized - unauthorizedBefore,
    succeeded: tally.succeeded,
    failed: tally.failed,
    pending: n - tally.settled,
    peakHeapBytes: Math.max(afterSend, afterUnauthorized, afterSettle) - start,
    queuedHeapBytes: queued,
    measuredHeap: heap,
  };
}
