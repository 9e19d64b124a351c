import type { BenchResults, GoalResult } from './results';

const KB = 1000;
const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** The goals of issue 5, judged on this run's figures (null where this run did not measure). */
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
          goal: 'Happy path: overhead within 10% of attach-only',
          met: ours.overheadRatioToAttachOnly <= 1.1,
          detail:
            `ours adds ${fmt(ours.overheadNs)} ns/request over bare, attach-only ${fmt(attach.overheadNs)} ns ` +
            `(×${fmt(ours.overheadRatioToAttachOnly, 2)}); per request in total ×${fmt(ours.ratioToAttachOnly, 2)} of attach-only` +
            (floor
              ? `; attach-only + catchError, the floor of any refreshing interceptor, adds ${fmt(floor.overheadNs)} ns (×${fmt(floor.overheadRatioToAttachOnly, 2)})`
              : ''),
        }
      : { goal: 'Happy path: overhead within 10% of attach-only', met: null, detail: 'not measured' },
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
  const full = cells.length > 0 && results.burst!.sizes.includes(100_000);
  goals.push({
    goal: 'Burst: exactly 1 refresh at every N',
    met: cells.length ? cells.every((c) => c.status === 'ok' && c.refreshCalls === 1) : null,
    detail: cells.length ? cells.map((c) => `N=${fmt(c.n)}: ${c.refreshCalls ?? c.status}`).join(', ') : 'not measured',
  });
  const linearity = results.burst?.linearity.find((l) => l.contender === 'ngx-token-refresh');
  goals.push({
    goal: 'Burst: settle time linear in N',
    met: full ? (linearity?.linear ?? false) : null,
    detail:
      linearity?.slope != null
        ? `log-log slope ${fmt(linearity.slope, 2)} over N = 1,000…100,000; decade ratios ${linearity.decadeRatios.map((d) => `×${fmt(d.ratio, 1)}`).join(', ')}`
        : 'not measured up to N = 100,000',
  });
  const at = (contender: string) => results.burst?.cells.find((c) => c.contender === contender && c.n === 10_000);
  const ours10k = at('ngx-token-refresh');
  const tutorial10k = at('behavior-subject');
  goals.push({
    goal: 'Burst: no slower than the BehaviorSubject pattern at N = 10,000',
    met: ours10k?.settleMs != null && tutorial10k?.settleMs != null ? ours10k.settleMs <= tutorial10k.settleMs : null,
    detail:
      ours10k?.settleMs != null && tutorial10k?.settleMs != null
        ? `${fmt(ours10k.settleMs, 1)} ms against ${fmt(tutorial10k.settleMs, 1)} ms (medians)`
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

  const variant = (id: string) => results.bundle?.variants.find((v) => v.id === id);
  const interceptor = variant('ntr-interceptor');
  const client = variant('ntr-client');
  const clientRouted = variant('ntr-client-router');
  goals.push({
    goal: 'Bundle: the interceptor adds under 2 KB gzip',
    met: interceptor?.addedGzipBytes != null ? interceptor.addedGzipBytes < 2 * KB : null,
    detail: interceptor?.addedGzipBytes != null ? `${fmt(interceptor.addedGzipBytes)} B gzip` : 'not measured',
  });
  goals.push({
    goal: 'Bundle: interceptor + service client under 5 KB gzip',
    met: client?.addedGzipBytes != null ? client.addedGzipBytes < 5 * KB : null,
    detail:
      client?.addedGzipBytes != null
        ? `${fmt(client.addedGzipBytes)} B gzip over the baseline` +
          (clientRouted?.addedGzipBytes != null
            ? `; ${fmt(clientRouted.addedGzipBytes)} B in an app that already routes`
            : '')
        : 'not measured',
  });
  // Tiny N and short rounds: the figures show that the scripts work, not how fast anything is.
  return results.mode === 'smoke' ? goals.map((g) => ({ ...g, met: null, detail: `smoke run: ${g.detail}` })) : goals;
}
