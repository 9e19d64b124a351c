import { LINEAR_SLOPE_LIMIT } from '../suites/burst';
import type { BenchResults, GoalResult, RoundTripRow } from './results';
import { logLogSlope } from './stats';

/** The builds searched for feature code (bench/src/suites/bundle.ts), as the goal names them. */
const FEATURELESS_BUILD_NAMES: Readonly<Record<string, string>> = {
  'ntr-interceptor': 'the interceptor alone',
  'ntr-client': 'interceptor + service client, cross-tab sync off',
  'ntr-oauth': 'the OAuth preset',
};

const KB = 1000;
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The goals of issues 5, 10 and 12, judged on this run's figures (null where this run did not measure). */
export function judgeGoals(results: Omit<BenchResults, 'goals'>): GoalResult[] {
  const goals: GoalResult[] = [];
  const happy = results.happyPath?.rows;
  const ours = happy?.find((r) => r.contender === 'ngx-token-refresh');
  const attach = happy?.find((r) => r.contender === 'attach-only');
  const jwt = happy?.find((r) => r.contender === 'auth0-jwt');
  const floor = happy?.find((r) => r.contender === 'attach-catch');
  goals.push(
    ours && attach
      ? {
          goal: 'Happy path: within 1.10× of attach-only',
          met: ours.ratioToAttachOnly <= 1.1,
          detail:
            `×${fmt(ours.ratioToAttachOnly, 2)} of attach-only per request (${fmt(ours.nsPerRequest)} against ${fmt(attach.nsPerRequest)} ns); ` +
            `over bare HttpClient ours adds ${fmt(ours.overheadNs)} ns, attach-only ${fmt(attach.overheadNs)} ns` +
            (floor
              ? `, attach-only + catchError (the floor of any refreshing interceptor) ${fmt(floor.overheadNs)} ns`
              : ''),
        }
      : { goal: 'Happy path: within 1.10× of attach-only', met: null, detail: 'not measured' },
  );
  goals.push(
    ours && jwt
      ? {
          goal: 'Happy path: no slower than JwtInterceptor',
          met: ours.nsPerRequest <= jwt.nsPerRequest,
          detail: `${fmt(ours.nsPerRequest)} ns/request against ${fmt(jwt.nsPerRequest)} ns`,
        }
      : { goal: 'Happy path: no slower than JwtInterceptor', met: null, detail: 'not measured' },
  );

  const cells = results.burst?.cells.filter((c) => c.contender === 'ngx-token-refresh') ?? [];
  goals.push({
    goal: 'Burst: exactly 1 refresh at every N',
    met: cells.length ? cells.every((c) => c.status === 'ok' && c.refreshCalls === 1) : null,
    detail: cells.length ? cells.map((c) => `N=${fmt(c.n)}: ${c.refreshCalls ?? c.status}`).join(', ') : 'not measured',
  });
  // Issue 10: linear and no slower than the tutorial pattern from N = 10 to 10,000, the range a
  // browser can hold in flight and then some; 100,000 is reported, not judged (RESULTS.md, FINDINGS.md).
  const browserRange = (results.burst?.sizes ?? []).filter((n) => n >= 10 && n <= 10_000);
  const cell = (contender: string, n: number) =>
    results.burst?.cells.find((c) => c.contender === contender && c.n === n);
  const oursTimes = browserRange.map((n) => ({ x: n, y: cell('ngx-token-refresh', n)?.settleMs ?? 0 }));
  const measured = browserRange.length >= 3 && oursTimes.every((p) => p.y > 0);
  const slope = measured ? logLogSlope(oursTimes) : null;
  goals.push({
    goal: 'Burst: settle time linear in N from 10 to 10,000',
    met: slope === null ? null : slope <= LINEAR_SLOPE_LIMIT,
    detail:
      slope === null
        ? 'not measured from N = 10 to 10,000'
        : `log-log slope ${fmt(slope, 2)} over N = ${browserRange.map((n) => fmt(n)).join(', ')} (linear: up to ${fmt(LINEAR_SLOPE_LIMIT, 2)})`,
  });
  const comparisons = browserRange.map((n) => ({
    n,
    ours: cell('ngx-token-refresh', n)?.settleMs ?? null,
    pattern: cell('behavior-subject', n)?.settleMs ?? null,
  }));
  const compared = comparisons.length > 0 && comparisons.every((c) => c.ours !== null && c.pattern !== null);
  goals.push({
    goal: 'Burst: no slower than the BehaviorSubject pattern at every N from 10 to 10,000',
    met: compared ? comparisons.every((c) => c.ours! <= c.pattern!) : null,
    detail: compared
      ? comparisons
          .map(
            (c) =>
              `N=${fmt(c.n)}: ${fmt(c.ours!, c.ours! < 10 ? 2 : 1)} against ${fmt(c.pattern!, c.pattern! < 10 ? 2 : 1)} ms`,
          )
          .join('; ') + ' (medians)'
      : 'not measured',
  });

  const soak = results.soak?.rows.find((r) => r.contender === 'ngx-token-refresh' && !r.control);
  const control = results.soak?.rows.find((r) => r.control);
  goals.push({
    goal: 'Soak: retained growth under 100 KB after 10,000 cycles',
    // Judged on the growth net of the control: the harness, HttpClient and V8 drift by themselves.
    met: soak?.netGrowthBytes != null && soak.cycles >= 10_000 ? soak.netGrowthBytes < 100 * KB : null,
    detail:
      soak?.growthBytes != null
        ? `${fmt(soak.growthBytes / KB, 1)} KB after ${fmt(soak.cycles)} cycles; ` +
          `${fmt((soak.netGrowthBytes ?? NaN) / KB, 1)} KB net of the control (which grew ${fmt((control?.growthBytes ?? NaN) / KB, 1)} KB without any expiry)`
        : 'not measured',
  });

  goals.push(proactiveRefreshGoal(results));

  const variant = (id: string) => results.bundle?.variants.find((v) => v.id === id);
  const interceptor = variant('ntr-interceptor');
  const client = variant('ntr-client');
  const clientRouted = variant('ntr-client-router');
  goals.push({
    goal: 'Bundle: the interceptor alone adds at most 2,000 B gzip',
    met: interceptor?.addedGzipBytes != null ? interceptor.addedGzipBytes <= 2_000 : null,
    detail: interceptor?.addedGzipBytes != null ? `${fmt(interceptor.addedGzipBytes)} B gzip` : 'not measured',
  });
  goals.push({
    goal: 'Bundle: interceptor + service client at most 5,500 B gzip',
    met: client?.addedGzipBytes != null ? client.addedGzipBytes <= 5_500 : null,
    detail:
      client?.addedGzipBytes != null
        ? `${fmt(client.addedGzipBytes)} B gzip over the baseline` +
          (clientRouted?.addedGzipBytes != null
            ? `; ${fmt(clientRouted.addedGzipBytes)} B in an app that already routes`
            : '')
        : 'not measured',
  });
  const crossTab = variant('ntr-cross-tab');
  const proactive = variant('ntr-proactive');
  const clientCrossTab = variant('ntr-client-cross-tab');
  const absent = results.bundle?.unusedFeaturesAbsent;
  const crossTabAdds = [
    crossTab?.addedGzipBytes != null ? `${fmt(crossTab.addedGzipBytes)} B gzip to the interceptor alone` : null,
    clientCrossTab?.addedGzipBytes != null
      ? `${fmt(clientCrossTab.addedGzipBytes)} B gzip under provideAuth (to interceptor + service client)`
      : null,
  ].filter((text) => text !== null);
  const found = Object.entries(results.bundle?.featureKindsFound ?? {}).filter(([, kinds]) => kinds.length > 0);
  goals.push({
    goal: 'Bundle: a feature that is not passed costs 0 B (cross-tab sync under provideAuth included)',
    met: absent ?? null,
    detail:
      absent == null
        ? 'not measured (needs the builds ntr-interceptor, ntr-client and ntr-oauth)'
        : (absent
            ? `no feature code in the builds without features (${Object.keys(results.bundle?.featureKindsFound ?? {})
                .map((id) => FEATURELESS_BUILD_NAMES[id] ?? id)
                .join('; ')})`
            : `feature code in a build without features: ${found.map(([id, kinds]) => `${id} has ${kinds.join(', ')}`).join('; ')}`) +
          (crossTabAdds.length ? `; withCrossTabSync, when passed, adds ${crossTabAdds.join(' and ')}` : '') +
          (proactive?.addedGzipBytes != null
            ? `; withProactiveRefresh, when passed, adds ${fmt(proactive.addedGzipBytes)} B gzip`
            : ''),
  });
  // Tiny N and short rounds: the figures show that the scripts work, not how fast anything is.
  return results.mode === 'smoke' ? goals.map((g) => ({ ...g, met: null, detail: `smoke run: ${g.detail}` })) : goals;
}

/** The rate issue 12's goal is judged at (requests per second). */
const PROACTIVE_GOAL_RATE = 10;

/**
 * Issue 12: with proactive refresh, steady traffic meets no 401 and pays exactly one refresh per
 * expiry (every token it fetches is used), and no call fails; shown next to the reactive wiring.
 */
function proactiveRefreshGoal(results: Omit<BenchResults, 'goals'>): GoalResult {
  const goal = `Round trips: 0 responses 401 and exactly 1 refresh per expiry with proactive refresh (${PROACTIVE_GOAL_RATE} requests/s)`;
  const row = (contender: string) =>
    results.roundTrips?.rows.find((r) => r.contender === contender && r.rate === PROACTIVE_GOAL_RATE);
  const proactive = row('ngx-token-refresh-proactive');
  const reactive = row('ngx-token-refresh-showcase');
  if (!proactive) return { goal, met: null, detail: 'not measured' };
  const perMinute = (r: RoundTripRow) =>
    r.refreshesPerMinute != null ? ` (${fmt(r.refreshesPerMinute, 2)} refresh calls per minute)` : '';
  const perExpiry = (r: RoundTripRow) =>
    r.unauthorizedPerExpiry === null || r.refreshesPerExpiry === null
      ? `no token ended, neither rejected nor replaced after half its lifetime${perMinute(r)}`
      : `${fmt(r.unauthorizedPerExpiry, 1)} 401s and ${fmt(r.refreshesPerExpiry, 2)} refreshes per expiry${perMinute(r)}`;
  // The counts themselves where the run has them: a ratio rounded to 3 digits could hide 1 in 1,000.
  const refreshes = proactive.refreshCalls ?? (proactive.refreshesPerExpiry ?? NaN) * proactive.expiries;
  const met =
    proactive.expiries > 0 &&
    proactive.unauthorizedPerExpiry === 0 &&
    refreshes === proactive.expiries &&
    proactive.failedCalls === 0;
  return {
    goal,
    met,
    detail:
      `proactive: ${perExpiry(proactive)}, ${fmt(proactive.expiries)} expiries, ${fmt(proactive.failedCalls)} failed calls` +
      (reactive ? `; reactive (showcase wiring): ${perExpiry(reactive)}` : ''),
  };
}
