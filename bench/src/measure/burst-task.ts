import { CONTENDERS } from '../contenders';
import { createBenchApp } from '../harness/bench-app';
import type { WorkerTask } from '../worker/tasks';
import { type BurstSample, runBurst } from './burst';

/** Bursts that read the heap (their times are not used): full GCs around a burst of 100,000 take seconds. */
const heapRunsFor = (n: number) => (n >= 100_000 ? 1 : 2);

/** Bursts of N, after warm-up bursts of at most 1,000 (so the code is optimised before it is timed). */
export async function runBurstTask(task: Extract<WorkerTask, { kind: 'burst' }>): Promise<BurstSample[]> {
  const app = createBenchApp(CONTENDERS[task.contender]);
  const warmupSize = Math.min(task.n, 1000);
  for (let i = 0; i < task.warmups; i++) {
    const warmup = await runBurst(app, warmupSize, { hangMs: task.hangMs });
    if (warmup.pending > 0) return [warmup];
  }
  const samples: BurstSample[] = [];
  // The timed bursts, then (unless one hung) the bursts that read the heap.
  const heapRuns = task.failRefresh ? 0 : heapRunsFor(task.n);
  for (let i = 0; i < task.repetitions + heapRuns; i++) {
    const sample = await runBurst(app, task.n, {
      hangMs: task.hangMs,
      failRefresh: task.failRefresh,
      measureHeap: task.failRefresh || i >= task.repetitions,
    });
    samples.push(sample);
    if (sample.pending > 0) break;
  }
  app.destroy();
  return samples;
}
