import { DPOP_LABELS, DPOP_WIRING } from '../contenders/dpop';
import { CALLS_COUNTED, type CryptoCalls } from '../measure/dpop-rounds';
import { LINEAR_SLOPE_LIMIT } from '../suites/burst';
import type { BenchResults, BurstCell, DPoPEnvironment, DPoPResults, SuiteRun } from './results';

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const fixed = (value: number, digits: number) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** Milliseconds with 3 significant digits (at most 3 decimals). */
const ms = (value: number) =>
  value >= 100 ? int(value) : fixed(value, Math.min(3, Math.max(0, 2 - Math.floor(Math.log10(Math.max(value, 1e-3))))));
const mb = (bytes: number) => `${fixed(bytes / 1e6, 1)} MB`;
const signed = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${int(Math.abs(bytes))}`;

function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align?: readonly ('l' | 'r')[],
): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const rule = header.map((_, i) => ((align?.[i] ?? (i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---'));
  return [line(header), line(rule), ...rows.map(line)].join('\n');
}

const STATUS: Readonly<Record<string, string>> = {
  ok: 'ok',
  'multiple-refresh': 'more than one refresh',
  hang: 'hangs',
  'failed-requests': 'requests failed',
  timeout: 'timed out',
  error: 'error',
  'not-run': 'not run',
};

/** bench/RESULTS.md, from the results alone (so it can be written again from results.json). */
export function renderMarkdown(results: BenchResults, options: { chart: string | null; findings: string | null }) {
  const label: Label = (id) => results.contenders.find((c) => c.id === id)?.label ?? id;
  return [
    ...renderHeader(results, options),
    ...renderGoals(results),
    ...renderContenders(results),
    ...(results.happyPath ? renderHappyPath(results.happyPath, label) : []),
    ...(results.burst ? renderBurst(results.burst, label, options) : []),
    ...(results.soak ? renderSoak(results.soak, label) : []),
    ...(results.bundle ? renderBundle(results.bundle) : []),
    ...(results.roundTrips ? renderRoundTrips(results.roundTrips, label) : []),
    ...(results.dpop ? renderDPoP(results.dpop) : []),
    ...renderMethod(),
  ].join('\n');
}

/** A contender's name in the tables, from its id. */
type Label = (id: string) => string;

/** The title, how the run was made, the machine, and the warnings about it. */
function renderHeader(results: BenchResults, options: { findings: string | null }): string[] {
  const out: string[] = [];
  const { machine } = results;
  out.push(
    '# Benchmarks',
    '',
    '<!-- Written by bench/src/run.ts from results/results.json: change the generator, not this file. -->',
    '',
    'ngx-token-refresh against the alternatives users would pick, side by side in one run (each measurement in a',
    'Node worker process of its own, started by the same `npm run bench`), with the compiled library',
    "(`dist/ngx-token-refresh`, as `npm run build:lib` leaves it), Angular's production mode, and a synchronous fake",
    '`HttpBackend`, so the figures measure the interceptors, not I/O.',
    '',
    table(
      ['', ''],
      [
        [
          'command',
          `\`${results.command}\`${results.mode === 'smoke' ? ' (smoke run: tiny N, figures not meaningful)' : ''}`,
        ],
        ['date', results.date],
        ['run time', `${int(results.durationSeconds)} s`],
        ['machine', `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB`],
        ['system', `${machine.os}, Node ${machine.node} (V8 ${machine.v8})`],
        [
          'load average',
          `${fixed(results.loadAverage.start, 2)} at the start, ${fixed(results.loadAverage.end, 2)} at the end (1 min)`,
        ],
        ...Object.entries(results.versions).map(([name, version]) => [name, version]),
        ['raw figures', '[results/results.json](results/results.json)'],
      ],
      ['l', 'l'],
    ),
    '',
  );
  if (results.loadAverage.start > machine.cores / 2) {
    out.push(
      `**The machine was busy** (load average ${fixed(results.loadAverage.start, 1)} on ${machine.cores} cores at the start):`,
      'other processes competed for the CPU, so absolute figures are noisy. Ratios between contenders hold better (they',
      'were measured interleaved); for figures to quote, run again on a quiet machine.',
      '',
    );
  }
  if (options.findings) {
    out.push(
      `Profiles of the goals missed, their causes, and the fixes with before and after figures: [FINDINGS.md](${options.findings}).`,
      '',
    );
  }

  return out;
}

/** The goals, met or not. */
function renderGoals(results: BenchResults): string[] {
  const out: string[] = [];
  out.push(
    '## Goals',
    '',
    table(
      ['goal (issues 5, 10 and 12)', 'met', 'figures'],
      results.goals.map((g) => [g.goal, g.met === null ? '–' : g.met ? 'yes' : '**no**', g.detail]),
      ['l', 'l', 'l'],
    ),
    '',
  );

  return out;
}

/** Who is compared, and how each is wired. */
function renderContenders(results: BenchResults): string[] {
  const out: string[] = [];
  out.push(
    '## Contenders',
    '',
    table(
      ['contender', 'refreshes', 'how it is wired (bench/src/contenders/)'],
      results.contenders.map((c) => [c.label, c.refreshes ? 'yes' : 'no', WIRING[c.id] ?? '']),
      ['l', 'l', 'l'],
    ),
    '',
  );

  return out;
}

/** 1. The happy path: one request at a time with a valid token. */
function renderHappyPath(happy: NonNullable<BenchResults['happyPath']>, label: Label): string[] {
  const out: string[] = [];
  out.push(
    '## 1. Happy path',
    '',
    `A signed-in app sends \`GET /api/items\` with a valid token as fast as it can; every request is answered at once.`,
    `Each contender runs in ${happy.isolates} worker process${happy.isolates === 1 ? '' : 'es'} of its own (each its own heap and JIT state;`,
    'V8 optimises the same code differently from one isolate to the next), measured one at a time in',
    `${happy.rounds} interleaved round${happy.rounds === 1 ? '' : 's'} of ${happy.roundMs} ms after warm-up rounds. Time is the process's CPU time, which`,
    'other processes of a busy machine disturb far less than the wall clock. Per process the fastest round counts;',
    'per contender, the median over its processes. Also shown: the same by the wall clock, the median of all',
    "rounds, and the fastest round of the contender's fastest and slowest process.",
    '',
    table(
      [
        'contender',
        'req/s',
        'ns/request (CPU)',
        'wall clock (ns)',
        'median of all rounds (ns)',
        'processes (ns)',
        '× bare',
        '× attach-only',
        'added over bare (ns)',
        'added × attach-only',
      ],
      happy.rows.map((r) => [
        label(r.contender),
        int(r.requestsPerSecond),
        int(r.nsPerRequest),
        int(r.wallNsPerRequest),
        int(r.nsPerRequestMedian),
        `${int(r.nsPerRequestBestRange[0])}–${int(r.nsPerRequestBestRange[1])}`,
        fixed(r.ratioToBare, 2),
        fixed(r.ratioToAttachOnly, 2),
        r.contender === 'bare' ? '–' : int(r.overheadNs),
        r.contender === 'bare' ? '–' : fixed(r.overheadRatioToAttachOnly, 2),
      ]),
    ),
    '',
  );
  return out;
}

/** 2. Bursts after expiry: settle time, refresh calls, heap, growth with N, the failed refresh. */
function renderBurst(
  burst: NonNullable<BenchResults['burst']>,
  label: Label,
  options: { chart: string | null },
): string[] {
  const out: string[] = [];
  const contenders = [...new Set(burst.cells.map((c) => c.contender))];
  const cell = (id: string, n: number) => burst.cells.find((c) => c.contender === id && c.n === n);
  const grid = (render: (c: BurstCell) => string) =>
    table(
      ['contender', ...burst.sizes.map((n) => `N = ${int(n)}`)],
      contenders.map((id) => [
        label(id),
        ...burst.sizes.map((n) => {
          const c = cell(id, n);
          if (!c) return '–';
          return c.status === 'ok' || c.status === 'multiple-refresh' ? render(c) : STATUS[c.status];
        }),
      ]),
    );
  out.push(
    '## 2. Burst after expiry',
    '',
    'The server expires the token; N requests go out and are all held by the backend, then all answered 401 at',
    'once (the first one starts the refresh, which the backend holds too); then the refresh answers. Timed: from the',
    'refresh answer until the last of the N requests has settled, after a minor GC (a scavenge) just before the answer,',
    'so the window pays for what settling allocates, not for the garbage of sending. Each (contender, N) runs in fresh worker processes',
    '(several up to N = 10,000: one process tends to stay in one garbage-collection regime, see FINDINGS.md), after',
    'warm-up bursts in each; the figure is the median over the repetitions of all its processes',
    `(${burst.sizes.map((n) => `${int(cell(contenders[0], n)?.samples ?? 0)} at N = ${int(n)}`).join(', ')}).`,
    'Contenders that only attach a token have no refresh and are left out.',
    '',
    '### Settle time (ms of CPU time, median; lowest–highest)',
    '',
    'CPU time of the worker process from the refresh answer until all N settled (the work is synchronous, so on a',
    'quiet machine it is the wall-clock time, plus what V8 does on its helper threads for GC).',
    '',
    grid((c) => `${ms(c.settleMs!)} (${ms(c.settleMsRange![0])}–${ms(c.settleMsRange![1])})`),
    '',
    '### Settle time by the wall clock (ms, median)',
    '',
    grid((c) => ms(c.wallSettleMs!)),
    '',
    options.chart ? `![Burst settle time against N](${options.chart})\n` : '',
    '### Refresh calls per burst (must be 1), and requests that did not succeed',
    '',
    grid(
      (c) =>
        `${c.refreshCalls}${c.failed ? `, ${int(c.failed)} failed` : ''}${c.pending ? `, ${int(c.pending)} hung` : ''}`,
    ),
    '',
    '### Heap',
    '',
    'From separate bursts after the timed ones (with full GCs around them). Peak: the highest reading of the',
    "worker's used V8 heap (after sending, after the 401s, after settling) above the start of the burst, garbage",
    'included. Queued: live heap (after full GCs) per request while all N wait for the refresh.',
    '',
    // Below N = 100 the live heap of the queue is smaller than what a GC leaves to chance.
    grid((c) =>
      c.n < 100
        ? `${mb(c.peakHeapBytes!)} peak`
        : `${mb(c.peakHeapBytes!)} peak, ${int(c.queuedBytesPerRequest!)} B/request queued`,
    ),
    '',
    '### Growth with N',
    '',
    `Ratios of the settle time between decades (×10 is linear) and the slope of log(time) against log(N) over`,
    `N = 1,000…100,000 (1 is linear, 2 quadratic; counted as linear up to ${LINEAR_SLOPE_LIMIT}).`,
    '',
    table(
      ['contender', ...burst.sizes.slice(0, -1).map((n) => `${int(n)} → ${int(n * 10)}`), 'slope', 'linear'],
      burst.linearity.map((l) => [
        label(l.contender),
        ...burst.sizes.slice(0, -1).map((n) => {
          const ratio = l.decadeRatios.find((d) => d.from === n);
          return ratio ? `×${fixed(ratio.ratio, 1)}` : '–';
        }),
        l.slope === null ? '–' : fixed(l.slope, 2),
        l.linear === null ? '–' : l.linear ? 'yes' : '**no**',
      ]),
    ),
    '',
    `### When the refresh fails (N = ${int(burst.failure[0]?.n ?? 0)})`,
    '',
    'The same burst, but the refresh answers 401 (refresh token revoked). Every request must end with an error;',
    'none may hang.',
    '',
    table(
      ['contender', 'outcome', 'refresh calls', 'rejected', 'succeeded', 'never settled'],
      burst.failure.map((f) => [
        label(f.contender),
        f.status === 'ok' ? 'all rejected' : STATUS[f.status],
        f.refreshCalls === null ? '–' : int(f.refreshCalls),
        f.rejected === null ? '–' : int(f.rejected),
        f.succeeded === null ? '–' : int(f.succeeded),
        f.pending === null ? '–' : int(f.pending),
      ]),
    ),
    '',
  );
  return out;
}

/** 3. The soak: heap growth over many expiry cycles, against a control. */
function renderSoak(soak: NonNullable<BenchResults['soak']>, label: Label): string[] {
  const out: string[] = [];
  const first = soak.rows[0];
  out.push(
    '## 3. Soak',
    '',
    `${int(first?.cycles ?? 0)} expiry cycles, each a burst of ${first?.burstSize ?? 0} requests failing with 401 and one refresh,`,
    'after warm-up cycles, in a fresh worker process per contender. Heap: V8 heap outside the code spaces, lowest of',
    'several readings after full GCs and event-loop turns (10 more cycles run between two such readings, to let V8',
    'finish its deferred clean-up), above the same reading after the warm-up. The control',
    'sends the same requests without any expiry (attach-only, nothing fails): what the harness, HttpClient and V8',
    'leave behind by themselves. A subscription or closure kept per cycle would show as growth above the control',
    '(10 bytes per cycle make 100 KB).',
    '',
    table(
      [
        'contender',
        'growth',
        'net of the control',
        'readings on the way',
        'refresh calls',
        'failed',
        'hung',
        'ms/cycle',
      ],
      soak.rows.map((r) =>
        r.status !== 'ok'
          ? [r.control ? 'control' : label(r.contender), STATUS[r.status] ?? r.status, '–', '–', '–', '–', '–', '–']
          : [
              r.control ? `control: ${label(r.contender)}, no expiry` : label(r.contender),
              `${signed(r.growthBytes!)} B`,
              r.netGrowthBytes === null ? '–' : `**${signed(r.netGrowthBytes)} B**`,
              r.checkpoints.map((c) => `${signed(Math.round(c.bytes / 1000))}K`).join(' '),
              int(r.refreshCalls!),
              int(r.failedRequests!),
              int(r.hungRequests!),
              fixed(r.msPerCycle!, 3),
            ],
      ),
    ),
    '',
  );
  return out;
}

/** 4. Bundle cost of each contender in a production build. */
function renderBundle(bundle: NonNullable<BenchResults['bundle']>): string[] {
  const out: string[] = [];
  const variant = (id: string | null) => bundle.variants.find((v) => v.id === id);
  out.push(
    '## 4. Bundle cost',
    '',
    'Production builds (`ng build`, `@angular/build:application`, optimization on) of a minimal zoneless app whose',
    'component calls the API once: with `provideHttpClient()` only, then with each contender added and used',
    `(bench/bundle/). Sizes are of all emitted JavaScript; gzip at level ${bundle.gzipLevel}. "By package" splits the added`,
    "minified bytes by where they come from (the build's stats; ngx-token-refresh by entry point).",
    ...renderFeatureCheck(bundle),
    ...renderRun(bundle.run, 'so are the goals on bundle size'),
    '',
    table(
      ['variant', 'raw', 'gzip', 'added raw', 'added gzip', 'compared with', 'added by package (minified bytes)'],
      bundle.variants.map((v) => [
        v.description,
        int(v.rawBytes),
        int(v.gzipBytes),
        v.addedRawBytes === null ? '–' : signed(v.addedRawBytes),
        v.addedGzipBytes === null ? '–' : `**${signed(v.addedGzipBytes)}**`,
        variant(v.baseline)?.id ?? '–',
        Object.entries(v.addedByPackage)
          .filter(([, bytes]) => Math.abs(bytes) >= 100)
          .sort((a, b) => b[1] - a[1])
          .map(([name, bytes]) => `${name} ${signed(bytes)}`)
          .join(', ') || '–',
      ]),
      ['l', 'r', 'r', 'r', 'r', 'l', 'l'],
    ),
    '',
  );
  return out;
}

/** Where a section's figures come from when they were merged in from a run of their own (`--merge`). */
function renderRun(run: SuiteRun | undefined, goalsToo: string): string[] {
  if (!run) return [];
  return [
    '',
    `Measured by \`${run.command}\` on ${run.date}, ngx-token-refresh ${run.library}, apart from`,
    `the run in the header, and merged into its results; ${goalsToo}.`,
  ];
}

/** What the search for feature code in the builds that pass no feature found. */
function renderFeatureCheck(bundle: NonNullable<BenchResults['bundle']>): string[] {
  const found = bundle.featureKindsFound;
  if (!found || Object.keys(found).length === 0) return [];
  const builds = Object.entries(found)
    .map(([id, kinds]) => `\`${id}\`: ${kinds.length ? kinds.map((k) => `'${k}'`).join(', ') : 'none'}`)
    .join('; ');
  return [
    'The builds that pass no feature are searched for the `ɵkind` of every feature, a string only a `withX()` carries',
    `(a feature not passed must cost 0 B). Found: ${builds}.`,
  ];
}

/** 5. Round trips added per token expiry, on a virtual clock. */
function renderRoundTrips(trips: NonNullable<BenchResults['roundTrips']>, label: Label): string[] {
  const out: string[] = [];
  const s = trips.scenario;
  const perExpiry = (value: number | null, digits: number) => (value === null ? '–' : fixed(value, digits));
  out.push(
    '## 5. Added round trips per token expiry',
    '',
    `The showcase's scenario on a virtual clock: access tokens (JWTs with \`iat\` and \`exp\`) live ${int(s.tokenLifetimeMs / 1000)} s, every round trip takes`,
    `${int(s.latencyMs)} ms ± ${int(s.jitterMs)} ms (seeded), and the app sends evenly spaced requests for ${s.lifetimes} token`,
    'lifetimes. An expiry is a token that carried requests and then ended: rejected as expired, or replaced ahead of',
    'expiry (a newer token carried a request after it had served at least half its lifetime; the token still in use',
    'when the traffic stops is not one). Counted per expiry: requests answered 401 (each a round trip spent for',
    'nothing, then repeated) and refresh calls (a duplicate refresh, whose token is never used or soon replaced,',
    'shows as more than 1); per minute of traffic, the refresh calls, which show what refreshing ahead of expiry',
    'costs. ngx-token-refresh is wired as in the showcase (`provideAuth` + `tokenRefreshInterceptor`; one app, no tabs,',
    'so `withNoCrossTabSync()`), reactive and',
    `with \`withProactiveRefresh()\` (defaults: a ${int(s.tokenLifetimeMs / 1000)} s token is refreshed ${fixed(Math.min(60_000, s.tokenLifetimeMs / 4) / 1000, 1)} s before it expires); the apps' timers`,
    'and `Date.now` run on the virtual clock.',
    ...renderRun(trips.run, 'so is the goal on round trips'),
    '',
    table(
      [
        'contender',
        'requests/s',
        'calls',
        'expiries (rejected / replaced)',
        '401s per expiry',
        'refreshes per expiry',
        'added round trips per expiry',
        'refresh calls per minute',
        'failed calls',
      ],
      trips.rows.map((r) => [
        label(r.contender),
        int(r.rate),
        int(r.calls),
        r.expiredInUse === undefined
          ? int(r.expiries)
          : `${int(r.expiries)} (${int(r.expiredInUse)} / ${int(r.expiries - r.expiredInUse)})`,
        perExpiry(r.unauthorizedPerExpiry, 1),
        perExpiry(r.refreshesPerExpiry, 2),
        `**${perExpiry(r.addedRoundTripsPerExpiry, 1)}**`,
        r.refreshesPerMinute === undefined ? '–' : fixed(r.refreshesPerMinute, 2),
        int(r.failedCalls),
      ]),
    ),
    '',
  );
  return out;
}

/** 6. What DPoP costs per request, in Chromium and in Node. */
function renderDPoP(dpop: DPoPResults): string[] {
  const out: string[] = [];
  const environments = [dpop.browser, dpop.node].filter((e): e is DPoPEnvironment => e !== null);
  const first = environments[0];
  out.push(
    '## 6. DPoP per request',
    '',
    'What sender-constrained tokens (`withDPoP()`, issue 27) cost each request, side by side with the alternatives:',
    'the same `GET /api/items` through HttpClient with a synchronous fake backend that checks the `Authorization`',
    'scheme and token and the presence of a `DPoP` header; the first proofs of each contender are checked as a server',
    'would (signature, `htm`, `htu`, `iat`, `jti`, `ath`), and must differ from one request to the next. Each request',
    'is timed from `http.get()` until it completes, with `performance.now()`: one request at a time (each awaited: the',
    `time a request waits for its proof) and ${dpop.parallel} at a time (a page loading several things at once: what`,
    "the signatures cost when they overlap). Chromium's WebCrypto, which users meet, runs in a production build of a",
    'page (bench/browser/, `ng build`), served from 127.0.0.1 with its IndexedDB; Node runs the same code',
    "(bench/src/measure/dpop-rounds.ts) in worker processes, with Node's WebCrypto and no IndexedDB (the key stays",
    'in memory there).',
    first
      ? `Each subject runs in ${first.copies} cop${first.copies === 1 ? 'y' : 'ies'} (browser contexts, worker processes), measured in turn in ${first.rounds} interleaved round${first.rounds === 1 ? '' : 's'} of ${int(first.roundMs)} ms per mode after warm-up rounds; the figure is the median over all rounds, with the lowest and highest round.`
      : '',
    ...(dpop.browserSkipped ? ['', `Not measured in Chromium: ${dpop.browserSkipped}.`] : []),
    ...renderRun(dpop.run, 'the rest of this file is from the run in the header'),
    ...(dpop.loadAverage
      ? [
          `Load average of the machine (1 min) when the suite started and ended: ${fixed(dpop.loadAverage.start, 2)} and ${fixed(dpop.loadAverage.end, 2)}${Math.max(dpop.loadAverage.start, dpop.loadAverage.end) > 1 ? '; other processes competed for the cores, so the ratios between subjects, measured in the same rounds, hold better than the absolute figures' : ''}.`,
        ]
      : []),
    '',
    table(
      ['subject', 'how it is wired'],
      Object.entries(DPOP_WIRING).map(([id, wiring]) => [DPOP_LABELS[id as keyof typeof DPOP_LABELS], wiring]),
      ['l', 'l'],
    ),
    '',
  );
  for (const env of environments) {
    const sign = env.rows.find((r) => r.subject === 'sign');
    const share = (added: number | null, floor: number | undefined) =>
      added === null || floor === undefined || added <= 0 ? '–' : `${fixed((100 * floor) / added, 0)} %`;
    const hasCpu = env.rows.some((r) => r.cpuUsPerRequest !== null);
    out.push(
      `### ${env.name}`,
      '',
      table(
        [
          'subject',
          'µs/request, one at a time (lowest–highest round)',
          'added over Bearer (µs)',
          'of which the signature alone',
          ...(hasCpu ? ['CPU µs/request (process, threads included)'] : []),
          `µs/request, ${dpop.parallel} at a time (lowest–highest)`,
          `added over Bearer, ${dpop.parallel} at a time (µs)`,
        ],
        env.rows.map((r) => [
          DPOP_LABELS[r.subject] ?? r.subject,
          `**${us(r.usPerRequest)}** (${us(r.usPerRequestRange[0])}–${us(r.usPerRequestRange[1])})`,
          r.addedUs === null || r.subject === 'ntr-bearer' ? '–' : us(r.addedUs),
          r.subject === 'sign' || r.subject === 'ntr-bearer' ? '–' : share(r.addedUs, sign?.usPerRequest),
          ...(hasCpu ? [r.cpuUsPerRequest === null ? '–' : us(r.cpuUsPerRequest)] : []),
          `${us(r.parallelUsPerRequest)} (${us(r.parallelUsPerRequestRange[0])}–${us(r.parallelUsPerRequestRange[1])})`,
          r.parallelAddedUs === null || r.subject === 'ntr-bearer' ? '–' : us(r.parallelAddedUs),
        ]),
      ),
      '',
    );
  }
  out.push(
    '### What each request asks of WebCrypto',
    '',
    `Calls of \`crypto.subtle\` counted over ${CALLS_COUNTED} requests with one token (after the first requests, which make`,
    `or load the key), then over ${CALLS_COUNTED} more after the token changed (a refresh): signatures, SHA-256 digests`,
    '(`ath` is the hash of the token), key exports (the public JWK in the header). Also: whether the proofs checked',
    'out, and whether a second application in the same page signed with the key the first one stored (a reload,',
    'another tab: IndexedDB).',
    '',
    table(
      [
        'subject',
        ...environments.map((e) => `${e.name}: one token`),
        ...environments.map((e) => `${e.name}: after a new token`),
        'proofs',
        'key of a second app',
      ],
      (environments[0]?.rows ?? [])
        .filter((r) => r.subject !== 'sign')
        .map((r) => {
          const rows = environments.map((e) => e.rows.find((x) => x.subject === r.subject));
          return [
            DPOP_LABELS[r.subject] ?? r.subject,
            ...rows.map((x) => calls(x?.ready.calls?.sameToken)),
            ...rows.map((x) => calls(x?.ready.calls?.newToken)),
            environments
              .map((e, i) => {
                const problems = rows[i]?.ready.proofProblems;
                if (problems === null || problems === undefined) return null;
                return `${e.name.split(' ')[0]}: ${problems.length ? problems.join('; ') : 'valid'}`;
              })
              .filter((text) => text !== null)
              .join(', ') || '– (Bearer)',
            environments
              .map((e, i) => {
                const reloaded = rows[i]?.ready.keyReloaded;
                return reloaded === null || reloaded === undefined
                  ? null
                  : `${e.name.split(' ')[0]}: ${reloaded ? 'the stored one' : 'a new one'}`;
              })
              .filter((text) => text !== null)
              .join(', ') || '–',
          ];
        }),
      ['l', ...environments.flatMap((): ('l' | 'r')[] => ['r', 'r']), 'l', 'l'],
    ),
    '',
  );
  return out;
}

/** Microseconds with 3 significant digits. */
function us(value: number): string {
  return value >= 100 ? int(value) : fixed(value, value >= 10 ? 1 : 2);
}

/** `100 sign, 1 digest` (calls of crypto.subtle). */
function calls(c: CryptoCalls | undefined): string {
  if (!c) return '–';
  const parts = [
    [c.sign, 'sign'],
    [c.digest, 'digest'],
    [c.exportKey, 'exportKey'],
    [c.other, 'other'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, name]) => `${n} ${name}`);
  return parts.length ? parts.join(', ') : 'none';
}

/** How the figures were taken, and what they do not show. */
function renderMethod(): string[] {
  const out: string[] = [];
  out.push(
    '## Method and caveats',
    '',
    '- Node, not a browser: the interceptors run on the same V8 engine as in Chrome, but without DOM, rendering or',
    '  network. Angular is linked at load time by its JIT compiler (partial declarations), which produces the same',
    '  code as the build-time linker; `ngDevMode` is off, as in a production build.',
    '- The fake backend answers synchronously, reports `Sent` first, and reads the `Authorization` header of every',
    '  request (so `HttpHeaders` applies its lazy updates, as XHR and fetch do). It plays the server: a request passes',
    '  only with the current token.',
    '- The class interceptors (`JwtInterceptor`, the BehaviorSubject tutorial, ngx-auth) are registered with',
    '  `HTTP_INTERCEPTORS` and `withInterceptorsFromDi()`, as their documentation says; the functional ones with',
    '  `withInterceptors`. That adapter is part of what users of a class interceptor pay.',
    '- Bursts are timed from the refresh answer: the 401s themselves come before and are not timed. A hang cannot block',
    '  the run: every (contender, N) has a deadline, after which its worker process is killed.',
    '- Heap figures are V8 heap statistics of the worker process; GC timing makes them approximate (±100 KB in the soak).',
    '',
  );
  return out;
}

const WIRING: Readonly<Record<string, string>> = {
  bare: '`provideHttpClient()`',
  'attach-only':
    '`withInterceptors([attachOnlyInterceptor])`: reads the token from a service, `request.clone({ setHeaders })`',
  'attach-catch':
    'attach-only whose response goes through `catchError` (errors passed on): the least any interceptor that refreshes on 401 pays; happy path only',
  'auth0-jwt': '`JwtModule.forRoot({ jwtOptionsProvider })`, `withInterceptorsFromDi()`',
  'behavior-subject':
    'class interceptor as in the widespread tutorials: `isRefreshing` + `BehaviorSubject<string \\| null>` + `filter`/`take(1)`/`switchMap`',
  'ngx-auth':
    '`importProvidersFrom(AuthModule)` + `AUTH_SERVICE`, `withInterceptorsFromDi()`; repeats through `HttpClient.request()`',
  'ngx-token-refresh':
    '`provideTokenRefresh({ refreshApiCall, extractToken, attachToken: true })` + `withInterceptors([tokenRefreshInterceptor])`',
  'ngx-token-refresh-showcase':
    "`provideAuth({ baseUrl }, withNoCrossTabSync())` of `ngx-token-refresh/client` + `tokenRefreshInterceptor` (the showcase's wiring, without cross-tab sync: one app, no tabs)",
  'ngx-token-refresh-proactive':
    "`provideAuth({ baseUrl }, withNoCrossTabSync(), withProactiveRefresh())` + `tokenRefreshInterceptor`, as a browser page (`PLATFORM_ID` 'browser', a visible document); round trips only",
};
