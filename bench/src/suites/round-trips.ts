import type { BenchConfig } from '../config';
import type { RoundTripResults } from '../report/results';
import { round } from '../report/stats';
import { runTask } from '../worker/pool';

/** Added round trips per expiry under steady traffic, on a virtual clock (one worker process). */
export async function runRoundTripSuite(scenario: BenchConfig['roundTrips']): Promise<RoundTripResults> {
  const outcome = await runTask({ kind: 'round-trips', scenario }, 120_000);
  if (!outcome.ok || outcome.answer.kind !== 'round-trips') {
    throw new Error(`bench: round trips failed: ${outcome.ok ? 'unexpected answer' : outcome.message}`);
  }
  return {
    scenario,
    rows: outcome.answer.results.map((r) => ({
      contender: r.contender,
      rate: r.rate,
      calls: r.calls,
      expiries: r.expiries,
      unauthorizedPerExpiry: round(r.unauthorized / r.expiries),
      refreshesPerExpiry: round(r.refreshCalls / r.expiries),
      addedRoundTripsPerExpiry: round((r.unauthorized + r.refreshCalls) / r.expiries),
      failedCalls: r.failedCalls,
    })),
  };
}
