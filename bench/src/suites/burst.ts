import type { BenchConfig } from '../config';
import type { ContenderId } from '../contenders/contender';
import type { BurstSample } from '../measure/burst';
import type { BurstCell, BurstResults, BurstStatus, FailureCell, Linearity } from '../report/results';
import { logLogSlope, median, round } from '../report/stats';
import { runTask } from '../worker/pool';

/** Slope of log(time) against log(N) above which growth no longer counts as linear. */
export const LINEAR_SLOPE_LIMIT = 1.15;

/**
 * Bursts after expiry, N ascending, each (contender, N) in `isolates(N)` fresh worker processes whose
 * samples are pooled. A contender that hangs or times out at some N is not run at larger N.
 */
export async function runBursts(config: BenchConfig['burst'], log: (line: string) => void): Promise<BurstResults> {
  const cells: BurstCell[] = [];
  const stopped = new Map<ContenderId, string>();
  for (const n of config.sizes) {
    for (const contender of config.contenders) {
      const reason = stopped.get(contender);
      if (reason) {
        cells.push(emptyCell(contender, n, 'not-run', reason));
        continue;
      }
      const isolates = config.isolates(n);
      const repetitions = Math.ceil(config.repetitions(n) / isolates);
      const started = performance.now();
      const samples: BurstSample[] = [];
      let failure: { reason: BurstStatus; message: string } | null = null;
      for (let i = 0; i < isolates && !failure; i++) {
        const outcome = await runTask(
          {
            kind: 'burst',
            contender,
            n,
            repetitions,
            warmups: config.warmups,
            hangMs: config.hangMs,
            failRefresh: false,
          },
          config.timeoutMs(n),
        );
        if (!outcome.ok) failure = { reason: outcome.reason, message: outcome.message };
        else if (outcome.answer.kind === 'burst') samples.push(...outcome.answer.samples);
      }
      const cell = failure
        ? emptyCell(contender, n, failure.reason, failure.message)
        : summarize(contender, n, samples);
      cells.push(cell);
      if (cell.status === 'hang' || cell.status === 'timeout' || cell.status === 'error') {
        stopped.set(contender, `${cell.status} at N = ${n.toLocaleString('en-US')}`);
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      log(`  ${contender} N=${n}: ${cell.status}, settle ${cell.settleMs ?? '-'} ms (${seconds} s)`);
    }
  }

  const failure: FailureCell[] = [];
  for (const contender of config.contenders) {
    const outcome = await runTask(
      {
        kind: 'burst',
        contender,
        n: config.failureSize,
        repetitions: 1,
        warmups: 0,
        hangMs: config.hangMs,
        failRefresh: true,
      },
      config.timeoutMs(config.failureSize),
    );
    const sample = outcome.ok && outcome.answer.kind === 'burst' ? outcome.answer.samples[0] : undefined;
    const status: BurstStatus = !outcome.ok
      ? outcome.reason
      : !sample
        ? 'error'
        : sample.pending > 0
          ? 'hang'
          : sample.refreshCalls > 1
            ? 'multiple-refresh'
            : sample.succeeded > 0
              ? 'failed-requests'
              : 'ok';
    failure.push({
      contender,
      n: config.failureSize,
      status,
      note: outcome.ok ? null : outcome.message,
      refreshCalls: sample?.refreshCalls ?? null,
      rejected: sample?.failed ?? null,
      succeeded: sample?.succeeded ?? null,
      pending: sample?.pending ?? null,
    });
    log(`  ${contender} refresh fails, N=${config.failureSize}: ${status}`);
  }

  return { sizes: config.sizes, cells, linearity: linearity(config.contenders, config.sizes, cells), failure };
}

function summarize(contender: ContenderId, n: number, samples: readonly BurstSample[]): BurstCell {
  const timedSamples = samples.filter((s) => s.settleMs !== null && !s.measuredHeap);
  const timed = timedSamples.map((s) => s.settleCpuMs as number);
  const wall = timedSamples.map((s) => s.settleMs as number);
  const heap = samples.filter((s) => s.measuredHeap);
  const worst = <K extends keyof BurstSample>(key: K) => Math.max(...samples.map((s) => s[key] as number));
  const pending = worst('pending');
  const refreshCalls = worst('refreshCalls');
  const failed = worst('failed');
  const status: BurstStatus =
    samples.length === 0
      ? 'error'
      : pending > 0
        ? 'hang'
        : refreshCalls > 1
          ? 'multiple-refresh'
          : failed > 0 || refreshCalls === 0
            ? 'failed-requests'
            : 'ok';
  return {
    contender,
    n,
    status,
    note: pending > 0 ? `${pending} of ${n} requests never settled` : null,
    samples: timed.length,
    settleMs: timed.length ? round(median(timed)) : null,
    settleMsRange: timed.length ? [round(Math.min(...timed)), round(Math.max(...timed))] : null,
    wallSettleMs: wall.length ? round(median(wall)) : null,
    refreshCalls,
    unauthorized: round(median(samples.map((s) => s.unauthorized))),
    succeeded: Math.min(...samples.map((s) => s.succeeded)),
    failed,
    pending,
    peakHeapBytes: heap.length ? Math.max(...heap.map((s) => s.peakHeapBytes)) : null,
    queuedBytesPerRequest: heap.length ? Math.round(median(heap.map((s) => s.queuedHeapBytes / n))) : null,
  };
}

function emptyCell(contender: ContenderId, n: number, status: BurstStatus, note: string): BurstCell {
  return {
    contender,
    n,
    status,
    note,
    samples: 0,
    settleMs: null,
    settleMsRange: null,
    wallSettleMs: null,
    refreshCalls: null,
    unauthorized: null,
    succeeded: null,
    failed: null,
    pending: null,
    peakHeapBytes: null,
    queuedBytesPerRequest: null,
  };
}

function linearity(contenders: readonly ContenderId[], sizes: readonly number[], cells: BurstCell[]): Linearity[] {
  return contenders.map((contender) => {
    const time = (n: number) => {
      const cell = cells.find((c) => c.contender === contender && c.n === n);
      return cell && (cell.status === 'ok' || cell.status === 'multiple-refresh') ? cell.settleMs : null;
    };
    const decadeRatios = sizes
      .filter((n) => sizes.includes(n * 10))
      .flatMap((n) => {
        const from = time(n);
        const to = time(n * 10);
        return from && to ? [{ from: n, to: n * 10, ratio: round(to / from) }] : [];
      });
    const large = sizes.filter((n) => n >= 1_000).map((n) => ({ x: n, y: time(n) ?? 0 }));
    const complete = large.length >= 3 && large.every((p) => p.y > 0);
    const slope = complete ? round(logLogSlope(large)) : null;
    return { contender, decadeRatios, slope, linear: slope === null ? null : slope <= LINEAR_SLOPE_LIMIT };
  });
}
