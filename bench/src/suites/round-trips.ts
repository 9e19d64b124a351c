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
    rows: outcome.answer.results.map((r) => {
      const perExpiry = (count: number) => (r.expiries > 0 ? round(count / r.expiries) : null);
      return {
        contender: r.contender,
        rate: r.rate,
        calls: r.calls,
        expiries: r.expiries,
        expiredInUse: r.expiredInUse,
        unauthorized: r.unauthorized,
        refreshCalls: r.refreshCalls,
        unauthorizedPerExpiry: perExpiry(r.unauthorized),
        refreshesPerExpiry: perExpiry(r.refreshCalls),
        addedRoundTripsPerExpiry: perExpiry(r.unauthorized + r.refreshCalls),
        refreshesPerMinute: round(r.refreshCalls / (r.trafficMs / 60_000)),
        failedCalls: r.failedCalls,
      };
    }),
  };
}
