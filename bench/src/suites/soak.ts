import type { BenchConfig } from '../config';
import type { SoakResults, SoakRow } from '../report/results';
import { linearSlope, round } from '../report/stats';
import { runTask } from '../worker/pool';

/** Expiry cycles per contender, each in a fresh worker process, after a control run without expiry. */
export async function runSoaks(config: BenchConfig['soak'], log: (line: string) => void): Promise<SoakResults> {
  const rows: SoakRow[] = [];
  const runs = [
    { contender: 'attach-only' as const, control: true },
    ...config.contenders.map((contender) => ({ contender, control: false })),
  ];
  for (const { contender, control } of runs) {
    const started = performance.now();
    const outcome = await runTask(
      {
        kind: 'soak',
        contender,
        expire: !control,
        cycles: config.cycles,
        burstSize: config.burstSize,
        warmupCycles: config.warmupCycles,
        checkpoints: config.checkpoints,
      },
      config.timeoutMs,
    );
    if (!outcome.ok || outcome.answer.kind !== 'soak') {
      const note = outcome.ok ? 'unexpected answer' : outcome.message;
      rows.push({
        contender,
        control,
        status: outcome.ok ? 'error' : outcome.reason,
        note,
        cycles: config.cycles,
        burstSize: config.burstSize,
        growthBytes: null,
        netGrowthBytes: null,
        maxGrowthBytes: null,
        bytesPerCycle: null,
        checkpoints: [],
        refreshCalls: null,
        failedRequests: null,
        hungRequests: null,
        msPerCycle: null,
      });
      continue;
    }
    const result = outcome.answer.result;
    const points = result.growth.map((g) => ({ x: g.cycle, y: g.bytes }));
    const last = result.growth.at(-1);
    const controlGrowth = rows.find((r) => r.control)?.growthBytes;
    rows.push({
      contender,
      control,
      status: 'ok',
      note: null,
      cycles: result.cycles,
      burstSize: result.burstSize,
      growthBytes: last?.bytes ?? null,
      netGrowthBytes: !control && last && controlGrowth != null ? last.bytes - controlGrowth : null,
      maxGrowthBytes: Math.max(...result.growth.map((g) => g.bytes)),
      bytesPerCycle: points.length >= 2 ? round(linearSlope(points)) : null,
      checkpoints: result.growth,
      refreshCalls: result.refreshCalls,
      failedRequests: result.failedRequests,
      hungRequests: result.hungRequests,
      msPerCycle: round(result.msPerCycle),
    });
    log(
      `  ${contender}: ${last?.bytes ?? '-'} bytes after ${result.cycles} cycles (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  return { rows };
}
