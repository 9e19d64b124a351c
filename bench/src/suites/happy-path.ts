import type { ChildProcess } from 'node:child_process';

import type { BenchConfig } from '../config';
import type { ContenderId } from '../contenders/contender';
import type { HappyPathResults, HappyPathRow } from '../report/results';
import { median, round } from '../report/stats';
import { startWorker } from '../worker/pool';
import type { HappyAnswer, HappyRequest } from '../worker/tasks';

/** Sends `message` and waits for the worker's next answer. */
function ask(worker: ChildProcess, message: HappyRequest | null): Promise<HappyAnswer> {
  return new Promise((resolve, reject) => {
    const onMessage = (answer: HappyAnswer) => {
      worker.off('error', onError);
      resolve(answer);
    };
    const onError = (error: unknown) => {
      worker.off('message', onMessage);
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    if (message) worker.send(message);
  });
}

/**
 * Requests per second with a valid token. Each contender runs in several worker processes (each its
 * own heap and JIT state, as in an app that has only that interceptor: V8's optimisation decisions
 * differ from one isolate to the next by up to ±20% on code like this). One process measures at a
 * time, in rounds whose order rotates, so drift of the machine spreads over all of them. The time
 * is the process's CPU time, which other processes on a busy machine disturb far less than the wall
 * clock (both are recorded). Per process the fastest round counts; per contender, the median of its
 * processes.
 */
export async function runHappyPath(config: BenchConfig['happyPath'], log: (line: string) => void) {
  const workers: {
    contender: ContenderId;
    worker: ChildProcess;
    best: number;
    bestWall: number;
    rounds: number[];
  }[] = [];
  const authorization = new Map<ContenderId, string | null>();
  try {
    for (let copy = 0; copy < config.isolates; copy++) {
      for (const contender of config.contenders) {
        const worker = startWorker({ kind: 'happy', contender });
        const ready = await ask(worker, null);
        if (ready.type !== 'ready') throw new Error(`bench: ${contender} did not start`);
        authorization.set(contender, ready.authorization);
        workers.push({ contender, worker, best: Infinity, bestWall: Infinity, rounds: [] });
      }
    }
    for (let round = 0; round < config.warmupRounds + config.rounds; round++) {
      const order = workers.map((_, i) => workers[(i + round) % workers.length]);
      for (const entry of order) {
        const answer = await ask(entry.worker, { type: 'measure', ms: config.roundMs });
        if (answer.type !== 'measured') throw new Error(`bench: ${entry.contender} did not measure`);
        if (round < config.warmupRounds) continue;
        const ns = (answer.cpuMs * 1e6) / answer.requests;
        entry.rounds.push(ns);
        entry.best = Math.min(entry.best, ns);
        entry.bestWall = Math.min(entry.bestWall, (answer.ms * 1e6) / answer.requests);
      }
      log(
        `  round ${round + 1 - config.warmupRounds}/${config.rounds}${round < config.warmupRounds ? ' (warm-up)' : ''}`,
      );
    }
  } finally {
    for (const { worker } of workers) {
      if (worker.connected) worker.send({ type: 'close' } satisfies HappyRequest);
      worker.kill();
    }
  }

  const of = (id: ContenderId) => workers.filter((w) => w.contender === id);
  const ns = (id: ContenderId) => median(of(id).map((w) => w.best));
  const bare = ns('bare');
  const attach = ns('attach-only');
  const rows: HappyPathRow[] = config.contenders.map((contender) => {
    const values = of(contender).flatMap((w) => w.rounds);
    const bests = of(contender).map((w) => w.best);
    const value = ns(contender);
    return {
      contender,
      authorization: shorten(authorization.get(contender) ?? null),
      requestsPerSecond: round(1e9 / value),
      nsPerRequest: round(value),
      nsPerRequestMedian: round(median(values)),
      wallNsPerRequest: round(median(of(contender).map((w) => w.bestWall))),
      nsPerRequestBestRange: [round(Math.min(...bests)), round(Math.max(...bests))],
      ratioToBare: round(value / bare),
      ratioToAttachOnly: round(value / attach),
      overheadNs: round(value - bare),
      overheadRatioToAttachOnly: round((value - bare) / (attach - bare)),
    };
  });
  return { isolates: config.isolates, rounds: config.rounds, roundMs: config.roundMs, rows } satisfies HappyPathResults;
}

const shorten = (header: string | null) => (header === null ? null : header.replace(/^(Bearer ).*$/, '$1<token>'));
