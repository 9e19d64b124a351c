import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { bffFigures } from '../../../bench/bff/bff-figures.mjs';
import { ROOT } from './readme-code.spec-helper';

// The READMEs quote measurements between markers, `<!-- results:bench.burst.ours.n10000 -->258 ms<!-- /results -->`;
// each figure is read here from the committed results, so a new run that changes one fails
// readme-figures.spec.ts until the README follows (`WRITE_README_FIGURES=1` writes them).

/** The READMEs that quote measurements. */
export const READMES_WITH_FIGURES = [
  'README.md',
  'projects/ngx-token-refresh/README.md',
  'projects/reference-server/README.md',
];

/** A marked figure: `key` names it in {@link readFigures}, `value` is what the README says. */
export interface MarkedFigure {
  readonly key: string;
  readonly value: string;
  /** `README.md:42`. */
  readonly where: string;
}

const MARKER = /<!-- results:([\w.-]+) -->(.*?)<!-- \/results -->/g;

/** The marked figures of `text` (a README's contents), in order. */
export function markedFigures(readme: string, text: string): MarkedFigure[] {
  return [...text.matchAll(MARKER)].map((match) => ({
    key: match[1] ?? '',
    value: match[2] ?? '',
    where: `${readme}:${text.slice(0, match.index).split('\n').length}`,
  }));
}

/** `text` with every marked figure replaced by its value in `figures` (unknown keys are left as they are). */
export function fillFigures(text: string, figures: ReadonlyMap<string, string>): string {
  return text.replace(MARKER, (whole, key: string) => {
    const value = figures.get(key);
    return value === undefined ? whole : `<!-- results:${key} -->${value}<!-- /results -->`;
  });
}

/**
 * Every figure the READMEs may quote, by key, as the README writes it, read from bench/results/results.json
 * (written by `npm run bench`, which renders bench/RESULTS.md from it), bench/SERVER-RESULTS.md
 * (written by `npm run bench:server`, which keeps no other record) and bench/BFF-RESULTS.md (`npm run
 * bench:bff`). Throws when a figure is missing.
 */
export function readFigures(): Map<string, string> {
  return new Map([...benchFigures(), ...serverFigures(), ...quotedBffFigures()]);
}

// --- bench/BFF-RESULTS.md ----------------------------------------------------------------------------

/**
 * The figures of bench/BFF-RESULTS.md (written by `npm run bench:bff`, read by its own bff-figures.mjs)
 * that the READMEs quote; the file has more (every store and connection count), which stay there.
 */
const QUOTED_BFF_FIGURES = [
  'bff.overhead.memory.added1',
  'bff.overhead.postgres.added1',
  'bff.overhead.memory.cpu10',
  'bff.overhead.memory.bareCpu10',
  'bff.overhead.memory.reqs10',
  'bff.overhead.memory.bareReqs10',
  'bff.grants.perExpiry',
  'bff.grants.sessions',
  'bff.grants.rate',
  'bff.grants.ttl',
  'bff.grants.expiries',
  'bff.grants.calls',
  'bff.grants.failed',
  'bff.grants.reuse',
];

function quotedBffFigures(): [string, string][] {
  const figures = new Map(bffFigures(readFileSync(join(ROOT, 'bench/BFF-RESULTS.md'), 'utf8')));
  return QUOTED_BFF_FIGURES.map((key) => [key, figures.get(key) ?? fail(`no figure ${key} in bench/BFF-RESULTS.md`)]);
}

// --- bench/results/results.json --------------------------------------------------------------------

interface BenchJson {
  durationSeconds: number;
  machine: { cores: number };
  happyPath: { rows: { contender: string; nsPerRequest: number; ratioToAttachOnly: number; overheadNs: number }[] };
  burst: {
    sizes: number[];
    cells: { contender: string; n: number; settleMs: number | null; refreshCalls: number | null }[];
    linearity: { contender: string; decadeRatios: { from: number; to: number; ratio: number | null }[] }[];
    failure: { contender: string; n: number; rejected: number; pending: number }[];
  };
  soak: { rows: { contender: string; cycles: number; netGrowthBytes: number | null }[] };
  roundTrips: {
    rows: { contender: string; rate: number; unauthorizedPerExpiry: number; refreshesPerExpiry: number }[];
  };
  bundle: { unusedFeaturesAbsent: boolean; variants: { id: string; addedGzipBytes: number | null }[] };
  goals: { goal: string; met: boolean | null }[];
  dpop: { browser: { name: string; rows: { subject: string; usPerRequest: number }[] } };
}

const OURS = 'ngx-token-refresh';
const PATTERN = 'behavior-subject';

function benchFigures(): [string, string][] {
  const results = JSON.parse(readFileSync(join(ROOT, 'bench/results/results.json'), 'utf8')) as BenchJson;
  const happy = (contender: string) => find(results.happyPath.rows, (row) => row.contender === contender, contender);
  const settle = (contender: string, n: number) =>
    find(results.burst.cells, (cell) => cell.contender === contender && cell.n === n, `${contender} N=${n}`).settleMs ??
    fail(`no burst settle time of ${contender} at N = ${n}`);
  const ours = happy(OURS);
  const attach = happy('attach-only');
  const jwt = happy('auth0-jwt');
  const largest = Math.max(...results.burst.sizes);
  const decade = (contender: string) =>
    find(results.burst.linearity, (row) => row.contender === contender, contender).decadeRatios.find(
      (step) => step.to === largest,
    )?.ratio ?? fail(`no growth ratio of ${contender} up to N = ${largest}`);
  const slowerAt = results.burst.sizes.filter((n) => settle(OURS, n) > settle(PATTERN, n));
  const fasterAt = results.burst.sizes.filter((n) => settle(OURS, n) <= settle(PATTERN, n));
  const failure = (contender: string) =>
    find(results.burst.failure, (row) => row.contender === contender, `${contender} (refresh fails)`);
  const soak = (contender: string) =>
    find(results.soak.rows, (row) => row.contender === contender, contender).netGrowthBytes ??
    fail(`no soak growth of ${contender}`);
  const trips = (contender: string) =>
    find(results.roundTrips.rows, (row) => row.contender === contender && row.rate === 10, `${contender} at 10/s`);
  const gzip = (id: string) =>
    find(results.bundle.variants, (variant) => variant.id === id, id).addedGzipBytes ?? fail(`no gzip size of ${id}`);
  const goal = (starts: string) => {
    const met = find(results.goals, (row) => row.goal.startsWith(starts), starts).met;
    return met === null ? 'not measured' : met ? 'met' : 'missed';
  };
  const dpop = (subject: string) =>
    microseconds(find(results.dpop.browser.rows, (row) => row.subject === subject, subject).usPerRequest);
  const refreshCalls = new Set(
    results.burst.cells.filter((cell) => cell.contender === OURS).map((c) => c.refreshCalls),
  );
  return [
    ['bench.runTime', `${Math.round(results.durationSeconds / 60)} minutes`],
    ['bench.cores', String(results.machine.cores)],
    ['bench.happy.ratioToAttachOnly', `${ours.ratioToAttachOnly.toFixed(2)}×`],
    ['bench.happy.ours', microseconds(ours.nsPerRequest / 1000)],
    ['bench.happy.attachOnly', microseconds(attach.nsPerRequest / 1000)],
    ['bench.happy.jwt', microseconds(jwt.nsPerRequest / 1000)],
    ['bench.happy.ratioToJwt', `${(ours.nsPerRequest / jwt.nsPerRequest).toFixed(2)}×`],
    ['bench.happy.oursAdded', `${grouped(ours.overheadNs)} ns`],
    ['bench.happy.attachCatchAdded', `${grouped(happy('attach-catch').overheadNs)} ns`],
    ['bench.burst.refreshes', [...refreshCalls].join(' or ')],
    ['bench.burst.largestN', grouped(largest)],
    ['bench.burst.ours.n10000', milliseconds(settle(OURS, 10_000))],
    ['bench.burst.pattern.n10000', milliseconds(settle(PATTERN, 10_000))],
    ['bench.burst.ratio.n10000', `${(settle(OURS, 10_000) / settle(PATTERN, 10_000)).toFixed(2)}×`],
    ['bench.burst.ours.largest', milliseconds(settle(OURS, largest))],
    ['bench.burst.pattern.largest', milliseconds(settle(PATTERN, largest))],
    ['bench.burst.ratio.largest', `${(settle(OURS, largest) / settle(PATTERN, largest)).toFixed(2)}×`],
    ['bench.burst.slowerAt', slowerAt.length ? list(slowerAt.map(grouped)) : 'no N'],
    ['bench.burst.fasterAt', fasterAt.length ? list(fasterAt.map(grouped)) : 'no N'],
    ['bench.burst.ours.lastDecade', `×${decade(OURS).toFixed(1)}`],
    ['bench.burst.pattern.lastDecade', `×${decade(PATTERN).toFixed(1)}`],
    ['bench.burst.failure.oursRejected', `${grouped(failure(OURS).rejected)} of ${grouped(failure(OURS).n)}`],
    ['bench.burst.failure.patternHung', `${grouped(failure(PATTERN).pending)} of ${grouped(failure(PATTERN).n)}`],
    ['bench.soak.cycles', grouped(find(results.soak.rows, (row) => row.contender === OURS, OURS).cycles)],
    ['bench.soak.ours', kilobytes(soak(OURS))],
    ['bench.soak.pattern', kilobytes(soak(PATTERN))],
    ['bench.bundle.interceptor', kilobytes(gzip('ntr-interceptor'))],
    ['bench.bundle.jwt', kilobytes(gzip('auth0-jwt'))],
    ['bench.bundle.client', kilobytes(gzip('ntr-client'))],
    ['bench.bundle.crossTab', `${grouped(gzip('ntr-cross-tab'))} B`],
    ['bench.bundle.clientCrossTab', `${grouped(gzip('ntr-client-cross-tab'))} B`],
    ['bench.bundle.router', kilobytes(gzip('base-router'))],
    [
      'bench.bundle.unusedFeatures',
      results.bundle.unusedFeaturesAbsent ? 'adds nothing' : 'adds code (see RESULTS.md)',
    ],
    ['bench.goal.interceptorSize', goal('Bundle: the interceptor alone')],
    ['bench.goal.clientSize', goal('Bundle: interceptor + service client')],
    ['bench.trips.ours401', trips('ngx-token-refresh-showcase').unauthorizedPerExpiry.toFixed(1)],
    ['bench.trips.oursRefreshes', trips('ngx-token-refresh-showcase').refreshesPerExpiry.toFixed(2)],
    ['bench.trips.pattern401', trips(PATTERN).unauthorizedPerExpiry.toFixed(1)],
    ['bench.trips.patternRefreshes', trips(PATTERN).refreshesPerExpiry.toFixed(2)],
    ['bench.dpop.browser', results.dpop.browser.name.replace(/^(\S+ \d+)\..*$/, '$1')],
    ['bench.dpop.bearer', dpop('ntr-bearer')],
    ['bench.dpop.ours', dpop('ntr-dpop')],
    ['bench.dpop.sign', dpop('sign')],
    ['bench.dpop.package', dpop('dpop-package')],
  ];
}

// --- bench/SERVER-RESULTS.md ------------------------------------------------------------------------

function serverFigures(): [string, string][] {
  const text = readFileSync(join(ROOT, 'bench/SERVER-RESULTS.md'), 'utf8');
  const engines = { pglite: section(text, 'PGlite (in memory)'), postgres: section(text, 'PostgreSQL') };
  const verify = section(text, 'Checking a token, without HTTP');
  const options = section(text, 'PGlite options');
  const cold = section(text, 'Cold start');
  const flood = section(text, 'Sign-ins under a hash flood');
  /** The first number of a flood row's cell: `46 / 64 / 67` → 46 (the median). */
  const floodCell = (row: string, column: number) => Number(cell(flood, row, column).split('/')[0]);
  const [noFlood, noCap, defaults] = [
    'no flood, the defaults',
    'no cap (`PASSWORD_CHECK_CONCURRENCY=0`)',
    'cap 2, queue 256 (the defaults)',
  ];
  /** A route's cell on both engines: `column` 1 is req/s, 3 is p99 ms. */
  const route = (label: string, column: number) =>
    [engines.pglite, engines.postgres].map((engine) => Number(cell(engine, label, column)));
  const refresh = (connections: number) =>
    `POST /auth/refresh, 200 sessions, every refresh rotating → 200 (${connections} connections)`;
  const login =
    'POST /auth/login from a trusted device → 200 (scrypt; the rate limit and the attempts counted in the database; a new session)';
  /** The bold ratio after `label` in the settled rounds: `in req/s: **0.98x**`. */
  const settled = (engine: string, newToken: boolean, label: string) => {
    const settledRounds = engine.slice(engine.indexOf('The same token on every call'));
    const [same = '', fresh = ''] = settledRounds.split('A token not seen before on every call (the worst case');
    return Number(match(newToken ? fresh : same, new RegExp(`^- ${escape(label)}[^*\\n]*\\*\\*([\\d.]+)x\\*\\*`, 'm')));
  };
  const cpu401 = (engine: string) => Number(cell(engine, 'GET /api/v1/users/0, no token → 401', 4));
  const resident = (name: string) => Number(cell(options, name, 2));
  const firstAnswer = (name: string) => Number(cell(cold, name, 1));
  const coldResident = (name: string) => Number(cell(cold, name, 4));
  const [later, laterEmpty] = [firstAnswer('in memory'), firstAnswer('new data folder (empty)')];
  const dataFolder = [coldResident('new data folder (empty)'), coldResident('data folder of an earlier start')];
  const ratios = (newToken: boolean, label: string) =>
    [settled(engines.pglite, newToken, label), settled(engines.postgres, newToken, label)] as const;
  const [sameReqs, sameCpu, newReqs] = [
    ratios(false, 'in req/s:'),
    ratios(false, 'in server CPU per answer'),
    ratios(true, 'in req/s:'),
  ];
  return [
    ['server.verify.seen', `${match(verify, /\*\*([\d.]+ µs)\*\* for a token already seen/)}`],
    ['server.verify.new', `${match(verify, /\*\*([\d.]+ µs)\*\* for a token not seen before/)}`],
    ['server.cpu401', range([cpu401(engines.pglite), cpu401(engines.postgres)], ' µs')],
    ['server.sameToken.reqs', range(sameReqs, 'x', 2)],
    ['server.newToken.reqs', range(newReqs, 'x', 2)],
    ['server.pglite.sameToken.reqs', `${sameReqs[0].toFixed(2)}x`],
    ['server.postgres.sameToken.reqs', `${sameReqs[1].toFixed(2)}x`],
    ['server.pglite.sameToken.cpu', `${sameCpu[0].toFixed(2)}x`],
    ['server.postgres.sameToken.cpu', `${sameCpu[1].toFixed(2)}x`],
    ['server.pglite.newToken.reqs', `${newReqs[0].toFixed(2)}x`],
    ['server.postgres.newToken.reqs', `${newReqs[1].toFixed(2)}x`],
    [
      'server.sharedBuffersSaving',
      `${resident("in memory, PGlite's defaults (shared_buffers=128MB)") - resident('in memory, shared_buffers=16MB (what the server runs with)')} MB`,
    ],
    ['server.start.template', seconds(firstAnswer('new data folder, first start after an install (no template yet)'))],
    ['server.start.later', `${range([later / 1000, laterEmpty / 1000], ' s', 1)}`],
    ['server.start.dataFolder', seconds(firstAnswer('data folder of an earlier start'))],
    ['server.resident.inMemory', `${coldResident('in memory')} MB`],
    ['server.resident.dataFolder', range(dataFolder, ' MB')],
    ['server.flood.hashes.noCap', `${floodCell(noCap, 2)}`],
    ['server.flood.hashes.default', `${floodCell(defaults, 2)}`],
    ['server.flood.trusted.noFlood', `${floodCell(noFlood, 5)} ms`],
    ['server.flood.trusted.noCap', `${floodCell(noCap, 5)} ms`],
    ['server.flood.trusted.default', `${floodCell(defaults, 5)} ms`],
    ['server.flood.newBrowser.default', seconds(floodCell(defaults, 6))],
    ['server.login.reqs', range(route(login, 1), '/s')],
    ['server.refresh16.reqs', range(route(refresh(16), 1), '/s')],
    ['server.refresh16.p99', range(route(refresh(16), 3), ' ms')],
    ['server.refresh64.reqs', range(route(refresh(64), 1), '/s')],
  ];
}

/** The text under `## heading`, up to the next `## `. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) fail(`no section "## ${heading}" in bench/SERVER-RESULTS.md`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Cell `column` (0 is the first) of the table row whose first cell is `first`, without markup. */
function cell(text: string, first: string, column: number): string {
  const row = text
    .split('\n')
    .map((line) => line.split('|').map((part) => part.trim()))
    .find((cells) => cells[1] === first);
  return (row?.[column + 1] ?? fail(`no table row "${first}" in bench/SERVER-RESULTS.md`)).replace(/[*,]/g, '');
}

function match(text: string, pattern: RegExp): string {
  return text.match(pattern)?.[1] ?? fail(`nothing matches ${pattern} in bench/SERVER-RESULTS.md`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// --- formats ----------------------------------------------------------------------------------------

const grouped = (value: number) => value.toLocaleString('en-US');
/** `258 ms`, `12.1 s`. */
const milliseconds = (ms: number) => (ms >= 1000 ? seconds(ms) : `${ms >= 10 ? Math.round(ms) : ms.toFixed(1)} ms`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** `154 µs`, `4.5 µs`. */
const microseconds = (us: number) => `${us >= 10 ? Math.round(us) : us.toFixed(1)} µs`;
/** `3.2 KB` (1 KB = 1,000 B, as RESULTS.md counts). */
const kilobytes = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
/** `0.92–0.98x`, or one value when both ends agree. */
function range(values: readonly number[], unit: string, digits = 0): string {
  const [low, high] = [Math.min(...values), Math.max(...values)].map((value) => value.toFixed(digits));
  return low === high ? `${low}${unit}` : `${low}–${high}${unit}`;
}
/** `100, 1,000 and 10,000`. */
const list = (items: string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

function find<T>(rows: readonly T[], test: (row: T) => boolean, what: string): T {
  return rows.find(test) ?? fail(`no result for ${what}`);
}

function fail(message: string): never {
  throw new Error(`ngx-token-refresh README figures: ${message}`);
}
