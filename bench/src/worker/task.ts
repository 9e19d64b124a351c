import '../setup/angular-in-node';

import { runBurstTask } from '../measure/burst-task';
import { serveDPoP } from '../measure/dpop';
import { serveHappyPath } from '../measure/happy-path';
import { runRoundTrips } from '../measure/round-trips';
import { runSoak } from '../measure/soak';
import type { WorkerAnswer, WorkerTask } from './tasks';

// A bench worker: a child process (see pool.ts) that runs the task given as its argument.
const task = JSON.parse(process.argv[2] ?? 'null') as WorkerTask;
const send = (message: unknown) => {
  if (!process.send) throw new Error('bench: task.ts runs as a child process of the bench (pool.ts)');
  process.send(message);
};

async function run(): Promise<WorkerAnswer | null> {
  switch (task.kind) {
    case 'happy':
      serveHappyPath(task.contender, send);
      return null;
    case 'burst':
      return { kind: 'burst', samples: await runBurstTask(task) };
    case 'soak':
      return { kind: 'soak', result: await runSoak(task) };
    case 'round-trips':
      return { kind: 'round-trips', results: await runRoundTrips(task.scenario) };
    case 'dpop':
      await serveDPoP(task.subject, send);
      return null;
  }
}

const answer = await run();
if (answer) {
  send(answer);
  // Timers of the apps (change detection ticks) must not keep the process alive.
  process.disconnect();
  process.exit(0);
}
