import { CONTENDERS } from '../contenders';
import { API_URL } from '../harness/fake-backend';
import { createBenchApp } from '../harness/bench-app';
import { collect, usedObjectHeap } from '../harness/heap';
import type { WorkerTask } from '../worker/tasks';
import { Tally, nextMacrotask, within } from './tally';

export interface SoakResult {
  readonly cycles: number;
  readonly burstSize: number;
  /** Live heap after a full GC following the warm-up cycles. */
  readonly baselineBytes: number;
  /**
   * Live heap above the baseline after every `cycles / checkpoints` cycles, read the same way as the
   * baseline.
   */
  readonly growth: readonly { readonly cycle: number; readonly bytes: number }[];
  readonly refreshCalls: number;
  readonly failedRequests: number;
  readonly hungRequests: number;
  readonly msPerCycle: number;
}

/**
 * Expiry cycles: the token expires, a burst of `burstSize` requests fails with 401, one refresh,
 * everything repeated. A subscription or closure kept per cycle shows as heap growing with cycles.
 */
export async function runSoak(task: Extract<WorkerTask, { kind: 'soak' }>): Promise<SoakResult> {
  const app = createBenchApp(CONTENDERS[task.contender]);
  const { backend, http } = app;
  let failedRequests = 0;
  let hungRequests = 0;

  // The control sends the same requests without any expiry: what the harness, HttpClient and V8
  // themselves leave behind over the cycles.
  if (!task.expire) backend.enforce = false;
  const cycle = async () => {
    if (task.expire) {
      backend.expire();
      backend.holdApi = true;
      backend.holdRefresh = true;
    }
    const tally = new Tally(task.burstSize);
    for (let i = 0; i < task.burstSize; i++) http.get(API_URL).subscribe(tally.observer);
    backend.holdApi = false;
    backend.flush();
    backend.releaseRefresh();
    if (tally.settled < task.burstSize) await within(tally.finished, 1000);
    failedRequests += tally.failed;
    hungRequests += task.burstSize - tally.settled;
  };
  const settle = async () => {
    // Some memory is released only after several GCs (maps V8 keeps for allocation sites, aged
    // feedback) or by a task that runs after a GC (finalization callbacks): alternate event-loop
    // turns and GCs, and take the lowest reading.
    let lowest = Infinity;
    for (let round = 0; round < 4; round++) {
      await nextMacrotask();
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (let i = 0; i < 3; i++) {
        collect();
        lowest = Math.min(lowest, usedObjectHeap());
      }
    }
    return lowest;
  };
  // A reading at a steady point: V8 releases part of what a long stretch of cycles leaves behind
  // only once some work ran after a full collection (~150 KB that a later reading no longer shows,
  // for every contender and the control alike). A few cycles between two settled readings let that
  // happen; a real leak of even 10 bytes per cycle still shows as 100 KB.
  const steadyReading = async () => {
    await settle();
    for (let i = 0; i < 10; i++) await cycle();
    return settle();
  };

  for (let i = 0; i < task.warmupCycles; i++) {
    await cycle();
    if (i % 100 === 99) await nextMacrotask();
  }
  const refreshesBefore = backend.refreshCalls;
  failedRequests = 0;
  hungRequests = 0;
  const baselineBytes = await steadyReading();
  const growth: { cycle: number; bytes: number }[] = [];
  const every = Math.max(1, Math.floor(task.cycles / task.checkpoints));
  let busyMs = 0;
  for (let i = 1; i <= task.cycles; i++) {
    const start = performance.now();
    await cycle();
    busyMs += performance.now() - start;
    if (i % every === 0 || i === task.cycles) growth.push({ cycle: i, bytes: (await steadyReading()) - baselineBytes });
    else if (i % 100 === 0) await nextMacrotask();
  }
  app.destroy();
  return {
    cycles: task.cycles,
    burstSize: task.burstSize,
    baselineBytes,
    growth,
    refreshCalls: backend.refreshCalls - refreshesBefore,
    failedRequests,
    hungRequests,
    msPerCycle: busyMs / task.cycles,
  };
}
