import './setup/angular-in-node';

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { format, resolveConfig } from 'prettier';

import { type BenchConfig, FULL, SMOKE } from './config';
import { CONTENDERS } from './contenders';
import { ngxTokenRefreshProactive, ngxTokenRefreshShowcase } from './contenders/ngx-token-refresh';
import { fullGc } from './harness/heap';
import { burstChart } from './report/chart';
import { judgeGoals } from './report/goals';
import { describeMachine, describeVersions } from './report/machine';
import { renderMarkdown } from './report/markdown';
import { mergeResults } from './report/merge-results';
import type { BenchResults } from './report/results';
import { round } from './report/stats';
import { runBursts } from './suites/burst';
import { runBundles } from './suites/bundle';
import { runDPoP } from './suites/dpop';
import { runHappyPath } from './suites/happy-path';
import { runRoundTripSuite } from './suites/round-trips';
import { runSoaks } from './suites/soak';

type Suite = 'happy' | 'burst' | 'soak' | 'round-trips' | 'bundle' | 'dpop';

export async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--render')) return render(args);
  const smoke = args.includes('--smoke');
  const config: BenchConfig = smoke ? SMOKE : FULL;
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const wants = (suite: Suite) => (only ? only.includes(suite) : true);
  const variants = args
    .find((a) => a.startsWith('--variants='))
    ?.slice('--variants='.length)
    .split(',');
  const merge = args.includes('--merge');
  if (merge && variants) throw new Error('bench --merge replaces the whole bundle table: leave out --variants');
  const out = outDir(args, smoke);
  // Read first: a run that cannot be merged should fail before it measures for minutes.
  const previous = merge ? readResults(out) : null;
  fullGc(); // fails early without --expose-gc

  const started = performance.now();
  const loadAtStart = os.loadavg()[0];
  const log = (line: string) => console.log(line);

  log(`== happy path (${config.happyPath.rounds} rounds × ${config.happyPath.roundMs} ms)`);
  const happyPath = wants('happy') ? await runHappyPath(config.happyPath, log) : null;
  log(`== burst after expiry (N = ${config.burst.sizes.join(', ')})`);
  const burst = wants('burst') ? await runBursts(config.burst, log) : null;
  log(`== soak (${config.soak.cycles} cycles)`);
  const soak = wants('soak') ? await runSoaks(config.soak, log) : null;
  log('== round trips per expiry');
  const roundTrips = wants('round-trips') ? await runRoundTripSuite(config.roundTrips) : null;
  const bundleWanted = wants('bundle') && (config.bundle || args.includes('--bundle'));
  log(`== bundle cost${bundleWanted ? '' : ' (skipped)'}`);
  const bundle = bundleWanted ? runBundles(log, variants) : null;
  log(
    `== DPoP per request (${config.dpop.rounds} rounds × ${config.dpop.roundMs} ms${config.dpop.browser ? ', Node and Chromium' : ', Node only'})`,
  );
  const dpop = wants('dpop') ? await runDPoP(config.dpop, log) : null;

  const contenders = [...Object.values(CONTENDERS), ngxTokenRefreshShowcase, ngxTokenRefreshProactive].map(
    ({ id, label, refreshes }) => ({
      id,
      label,
      refreshes,
    }),
  );
  const flags = [
    only ? `--only=${only.join(',')}` : null,
    variants ? `--variants=${variants.join(',')}` : null,
    merge ? '--merge' : null,
  ].filter((flag) => flag !== null);
  const measured: Omit<BenchResults, 'goals'> = {
    schema: 1,
    mode: config.mode,
    command: smoke ? 'npm run bench:smoke' : `npm run bench${flags.length ? ` -- ${flags.join(' ')}` : ''}`,
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    loadAverage: { start: round(loadAtStart, 2), end: round(os.loadavg()[0], 2) },
    versions: describeVersions(),
    contenders,
    happyPath,
    burst,
    soak,
    roundTrips,
    bundle,
    dpop,
    durationSeconds: Math.round((performance.now() - started) / 1000),
  };
  const partial = previous ? mergeResults(previous, measured) : measured;
  const results: BenchResults = { ...partial, goals: judgeGoals(partial) };

  await write(results, out);

  log('');
  for (const goal of results.goals)
    log(`${goal.met === null ? '–' : goal.met ? '✔' : '✘'} ${goal.goal}: ${goal.detail}`);
  log(`\nWrote ${fileURLToPath(new URL('RESULTS.md', out))} and results/ in ${measured.durationSeconds} s.`);
}

/** Where the results go: `--out=<dir>`, else bench/ (smoke runs: dist/bench-smoke/). */
function outDir(args: readonly string[], smoke: boolean): URL {
  const outArg = args.find((a) => a.startsWith('--out='))?.slice('--out='.length);
  return outArg
    ? new URL(`${outArg.replace(/\/?$/, '/')}`, `file://${process.cwd()}/`)
    : new URL(smoke ? '../../dist/bench-smoke/' : '../', import.meta.url);
}

/** Writes results/results.json, results/burst-settle.svg and RESULTS.md into `out`. */
async function write(results: BenchResults, out: URL): Promise<void> {
  const resultsDir = new URL('results/', out);
  mkdirSync(resultsDir, { recursive: true });
  const labels = Object.fromEntries(results.contenders.map((c) => [c.id, c.label]));
  const chart = results.burst ? burstChart(results.burst, labels, 'ngx-token-refresh') : null;
  if (chart) writeFileSync(new URL('burst-settle.svg', resultsDir), chart);
  const findings = existsSync(new URL('FINDINGS.md', out)) ? 'FINDINGS.md' : null;
  const prettier = (await resolveConfig(fileURLToPath(new URL('RESULTS.md', out)))) ?? {};
  writeFileSync(
    new URL('results.json', resultsDir),
    await format(JSON.stringify(results, null, 2), { ...prettier, parser: 'json' }),
  );
  writeFileSync(
    new URL('RESULTS.md', out),
    await format(renderMarkdown(results, { chart: chart ? 'results/burst-settle.svg' : null, findings }), {
      ...prettier,
      parser: 'markdown',
    }),
  );
}

/** The results of an earlier run, from results/results.json in `out`. */
function readResults(out: URL): BenchResults {
  return JSON.parse(readFileSync(new URL('results/results.json', out), 'utf8')) as BenchResults;
}

/** `--render`: writes RESULTS.md and the chart again from results/results.json, measuring nothing. */
async function render(args: readonly string[]): Promise<void> {
  const out = outDir(args, args.includes('--smoke'));
  const results = readResults(out);
  await write(results, out);
  console.log(`Wrote ${fileURLToPath(new URL('RESULTS.md', out))} from results/results.json.`);
}
