import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { WorkerAnswer, WorkerTask } from './tasks';

const TASK = fileURLToPath(new URL('./task.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Starts a worker for `task`: a child process of its own, so every measurement has a fresh heap and
 * JIT state, its CPU time can be read on its own (`process.cpuUsage()`, which the other processes
 * of a busy machine do not disturb the way they disturb the wall clock), and a contender that
 * blocks can be stopped. A burst of 100,000 requests needs about 1 GB of heap.
 */
export function startWorker(task: WorkerTask): ChildProcess {
  return fork(TASK, [JSON.stringify(task)], {
    cwd: ROOT,
    execArgv: ['--expose-gc', '--single-threaded-gc', '--max-old-space-size=4096', '--import', 'tsx'],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

export type TaskOutcome =
  | { readonly ok: true; readonly answer: WorkerAnswer }
  | { readonly ok: false; readonly reason: 'timeout' | 'error'; readonly message: string };

/**
 * Runs `task` in a fresh worker and kills it after `timeoutMs`: a contender that blocks (a hang,
 * or time quadratic in N) cannot stop the run.
 */
export function runTask(task: WorkerTask, timeoutMs: number): Promise<TaskOutcome> {
  return new Promise((resolve) => {
    const worker = startWorker(task);
    let settled = false;
    const finish = (outcome: TaskOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.kill('SIGKILL');
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ ok: false, reason: 'timeout', message: `no answer within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    worker.once('message', (answer: WorkerAnswer) => finish({ ok: true, answer }));
    worker.once('error', (error) => finish({ ok: false, reason: 'error', message: String(error?.message ?? error) }));
    worker.once('exit', (code, signal) =>
      finish({ ok: false, reason: 'error', message: `worker exited (${signal ?? `code ${code}`})` }),
    );
  });
}
