import type { ChildProcess } from 'node:child_process';
import os from 'node:os';

import type { BenchConfig } from '../config';
import { DPOP_CONTENDER_IDS } from '../contenders/dpop';
import { DPOP_PARALLEL, type DPoPSubjectId, type DPoPSubjectReady } from '../measure/dpop-rounds';
import type { DPoPEnvironment, DPoPResults, DPoPRow } from '../report/results';
import { median, quantile, round } from '../report/stats';
import { startWorker } from '../worker/pool';
import type { DPoPAnswer, DPoPRequest } from '../worker/tasks';
import { runDPoPInChromium } from './dpop-browser';

/** The subjects in the order of the tables: the contenders, then the signature alone. */
export const DPOP_SUBJECTS: readonly DPoPSubjectId[] = [...DPOP_CONTENDER_IDS, 'sign'];

/** One measured copy of a subject (a worker process, or a page), and the rounds it answered. */
export interface DPoPCopy {
  readonly subject: DPoPSubjectId;
  readonly ready: DPoPSubjectReady;
  /** µs per request of each round, one request at a time, and DPOP_PARALLEL at a time. */
  readonly sequential: number[];
  readonly parallel: number[];
  /** CPU µs per request of each sequential round (Node only). */
  readonly cpu: number[];
}

/** Measures a copy's round: `parallel` requests at a time for `ms`; µs per request (and CPU µs, if known). */
export type AskRound = (parallel: number, ms: number) => Promise<{ us: number; cpuUs: number | null }>;

/**
 * Interleaved rounds over `copies`: in each round every copy is measured once one request at a time and
 * once DPOP_PARALLEL at a time, in an order that rotates from round to round, so drift of the machine
 * spreads over all of them. Warm-up rounds are not kept.
 */
export async function interleave(
  copies: readonly { copy: DPoPCopy; ask: AskRound }[],
  config: BenchConfig['dpop'],
  log: (line: string) => void,
): Promise<void> {
  for (let r = 0; r < config.warmupRounds + config.rounds; r++) {
    const order = copies.map((_, i) => copies[(i + r) % copies.length]);
    for (const { copy, ask } of order) {
      const one = await ask(1, config.roundMs);
      const many = await ask(DPOP_PARALLEL, config.roundMs);
      if (r < config.warmupRounds) continue;
      copy.sequential.push(one.us);
      copy.parallel.push(many.us);
      if (one.cpuUs !== null) copy.cpu.push(one.cpuUs);
    }
    log(`  round ${r + 1 - config.warmupRounds}/${config.rounds}${r < config.warmupRounds ? ' (warm-up)' : ''}`);
  }
}

/** The table of one environment, from its copies' rounds. */
export function summarize(name: string, copies: readonly DPoPCopy[], config: BenchConfig['dpop']): DPoPEnvironment {
  const of = (subject: DPoPSubjectId) => copies.filter((c) => c.subject === subject);
  const pooled = (subject: DPoPSubjectId, pick: (c: DPoPCopy) => number[]) => of(subject).flatMap(pick);
  const bearer = median(pooled('ntr-bearer', (c) => c.sequential));
  const bearerParallel = median(pooled('ntr-bearer', (c) => c.parallel));
  const rows: DPoPRow[] = DPOP_SUBJECTS.filter((s) => of(s).length > 0).map((subject) => {
    const sequential = pooled(subject, (c) => c.sequential);
    const parallel = pooled(subject, (c) => c.parallel);
    const cpu = pooled(subject, (c) => c.cpu);
    const us = median(sequential);
    const parallelUs = median(parallel);
    return {
      subject,
      ready: of(subject)[0].ready,
      usPerRequest: round(us),
      usPerRequestQuartiles: [round(quantile(sequential, 0.25)), round(quantile(sequential, 0.75))],
      usPerRequestRange: [round(Math.min(...sequential)), round(Math.max(...sequential))],
      cpuUsPerRequest: cpu.length ? round(median(cpu)) : null,
      parallelUsPerRequest: round(parallelUs),
      parallelUsPerRequestRange: [round(Math.min(...parallel)), round(Math.max(...parallel))],
      addedUs: subject === 'sign' ? null : round(us - bearer),
      parallelAddedUs: subject === 'sign' ? null : round(parallelUs - bearerParallel),
    };
  });
  return { name, copies: config.isolates, rounds: config.rounds, roundMs: config.roundMs, rows };
}

/**
 * What DPoP costs per request (issue 27): ngx-token-refresh with a Bearer token, with `withDPoP()`, and
 * a hand-written interceptor with panva's `dpop` package, and the ES256 signature alone, each sending the
 * same requests through HttpClient with a synchronous fake backend; in Node workers, then in Chromium.
 */
export async function runDPoP(config: BenchConfig['dpop'], log: (line: string) => void): Promise<DPoPResults> {
  const loadAtStart = os.loadavg()[0];
  log('  Node');
  const node = await runDPoPInNode(config, log);
  let browser: DPoPEnvironment | null = null;
  if (config.browser) {
    log('  Chromium');
    browser = await runDPoPInChromium(config, log);
  }
  return {
    parallel: DPOP_PARALLEL,
    node,
    browser,
    browserSkipped: config.browser ? null : 'smoke run: Node only',
    loadAverage: { start: round(loadAtStart, 2), end: round(os.loadavg()[0], 2) },
  };
}

async function runDPoPInNode(config: BenchConfig['dpop'], log: (line: string) => void): Promise<DPoPEnvironment> {
  const copies: { copy: DPoPCopy; ask: AskRound; worker: ChildProcess }[] = [];
  try {
    for (let i = 0; i < config.isolates; i++) {
      for (const subject of DPOP_SUBJECTS) {
        const worker = startWorker({ kind: 'dpop', subject });
        const ready = await ask(worker, null);
        if (ready.type !== 'ready') throw new Error(`bench: dpop ${subject} did not start`);
        const copy: DPoPCopy = { subject, ready: ready.ready, sequential: [], parallel: [], cpu: [] };
        const askRound: AskRound = async (parallel, ms) => {
          const answer = await ask(worker, { type: 'measure', parallel, ms });
          if (answer.type !== 'measured') throw new Error(`bench: dpop ${subject} did not measure`);
          return { us: (answer.ms * 1000) / answer.requests, cpuUs: (answer.cpuMs * 1000) / answer.requests };
        };
        copies.push({ copy, ask: askRound, worker });
      }
    }
    await interleave(copies, config, log);
  } finally {
    for (const { worker } of copies) {
      if (worker.connected) worker.send({ type: 'close' } satisfies DPoPRequest);
      worker.kill();
    }
  }
  return summarize(
    `Node ${process.version}`,
    copies.map((c) => c.copy),
    config,
  );
}

/** Sends `message` and waits for the worker's next answer (or its death). */
function ask(worker: ChildProcess, message: DPoPRequest | null): Promise<DPoPAnswer> {
  return new Promise((resolve, reject) => {
    const onMessage = (answer: DPoPAnswer) => {
      worker.off('exit', onExit);
      resolve(answer);
    };
    const onExit = (code: number | null) => {
      worker.off('message', onMessage);
      reject(new Error(`bench: a dpop worker exited (code ${code})`));
    };
    worker.once('message', onMessage);
    worker.once('exit', onExit);
    if (message) worker.send(message);
  });
}
