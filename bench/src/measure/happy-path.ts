import { CONTENDERS } from '../contenders';
import type { ContenderId } from '../contenders/contender';
import { type BenchApp, createBenchApp } from '../harness/bench-app';
import { API_URL } from '../harness/fake-backend';
import type { HappyAnswer, HappyRequest } from '../worker/tasks';

/** Requests per loop turn between two clock readings. */
const BATCH = 500;

/**
 * Serves the happy-path rounds of one contender: one application, signed in with a valid token,
 * that sends `GET /api/items` as often as it can for the time asked, every request answered at once.
 */
export function serveHappyPath(contenderId: ContenderId, send: (answer: HappyAnswer) => void): void {
  const contender = CONTENDERS[contenderId];
  const app = createBenchApp(contender);
  // bare sends no token; the others must pass the server's check on every request.
  app.backend.enforce = contender.id !== 'bare';
  const check = measure(app, 0, contenderId);
  if (check.requests < 1) throw new Error(`bench: ${contenderId} sent no request`);
  send({ type: 'ready', authorization: app.backend.lastAuthorization });
  process.on('message', (message: HappyRequest) => {
    if (message.type === 'close') process.exit(0);
    send({ type: 'measured', ...measure(app, message.ms, contenderId) });
  });
}

function measure(app: BenchApp, ms: number, contenderId: ContenderId): { requests: number; ms: number; cpuMs: number } {
  const { http, backend } = app;
  let completed = 0;
  let failed = 0;
  const observer = { complete: () => completed++, error: () => failed++ };
  const unauthorized = backend.unauthorized;
  // No forced GC before a round: after one, V8 shrinks the young generation and returns memory on
  // helper threads, which slows the next few hundred milliseconds by a third.
  let requests = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let now = start;
  do {
    for (let i = 0; i < BATCH; i++) http.get(API_URL).subscribe(observer);
    requests += BATCH;
    now = performance.now();
  } while (now - start < ms);
  if (completed !== requests || failed > 0 || backend.unauthorized !== unauthorized) {
    throw new Error(`bench: happy path of ${contenderId}: ${failed} of ${requests} requests failed`);
  }
  const used = process.cpuUsage(cpu);
  return { requests, ms: now - start, cpuMs: (used.user + used.system) / 1000 };
}
