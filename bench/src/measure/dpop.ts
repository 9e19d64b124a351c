import { DOCUMENT_STUB } from '../harness/bench-app';
import { lib } from '../harness/library';
import type { DPoPAnswer, DPoPRequest } from '../worker/tasks';
import { type DPoPSubjectId, startDPoPSubject } from './dpop-rounds';

/**
 * Serves the DPoP suite's rounds of one subject in a Node worker: the same code as in Chromium's page
 * (dpop-rounds.ts), with the process's CPU time beside the wall clock. Node has no IndexedDB:
 * ngx-token-refresh keeps the key in memory there.
 */
export async function serveDPoP(subject: DPoPSubjectId, send: (answer: DPoPAnswer) => void): Promise<void> {
  const measured = await startDPoPSubject(subject, lib, DOCUMENT_STUB);
  send({ type: 'ready', ready: measured.ready });
  process.on('message', (message: DPoPRequest) => {
    if (message.type === 'close') process.exit(0);
    const cpu = process.cpuUsage();
    measured.round(message.parallel, message.ms).then(
      ({ requests, ms }) => {
        const used = process.cpuUsage(cpu);
        send({ type: 'measured', requests, ms, cpuMs: (used.user + used.system) / 1000 });
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
