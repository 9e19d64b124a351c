// `npm run bench:server` (node bench/server/run.mjs): load benchmark of the built server (dist/main.js), on loopback only and
// bounded in time. For each engine (PGlite always; PostgreSQL when DATABASE_URL is set, whose
// database it migrates and seeds, so give it a scratch one) it starts the server as `npm run server`
// would, measures the start-up time and memory, then loads each route with autocannon for a few
// seconds and writes throughput, p50/p99 latency and the ratios to a Markdown file. It also measures
// PGlite's own start-up and memory under its options, the server's cold start (cold-start.mjs), and
// sign-ins under a hash flood with the cap on password checks set in several ways (login-flood.mjs).
//
//   --smoke          about 5 s in all: PGlite only, 1 s per route, no PGlite options or cold start (for CI)
//   --out=<file>     where to write (default bench/SERVER-RESULTS.md; --smoke: test-results/bench-server-smoke.md)
//   --duration=<s>   seconds per route (default 5)
//   --rounds=<n>     interleaved 1-s rounds of the token-check routes (default 30; --smoke: 1)
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { format, resolveConfig } from 'prettier';

import { benchEngine } from './bench-engine.mjs';
import { coldStart } from './cold-start.mjs';
import { loginFlood } from './login-flood.mjs';
import { pgliteOptions } from './pglite-options.mjs';
import { describeMachine } from './process-stats.mjs';
import { connections, databaseUrl, duration, out, smoke } from './settings.mjs';
import { tokenCheckCost } from './token-check-cost.mjs';

const engines = [{ name: 'PGlite (in memory)', env: {} }];
if (databaseUrl && !smoke) engines.push({ name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl } });

const sections = [await tokenCheckCost()];
for (const engine of engines) sections.push(await benchEngine(engine));
if (!databaseUrl) sections.push('PostgreSQL: skipped (DATABASE_URL is not set).\n');
else if (smoke) sections.push('PostgreSQL: skipped in --smoke.\n');
sections.push(await loginFlood());
if (!smoke) sections.push(await pgliteOptions(), await coldStart({ runs: 3 }));

// Not measured here: an outside probe's figures (issue 38), kept next to this script's own for the same things.
sections.push(
  [
    '## An outside probe, for comparison',
    '',
    'Not measured by this script: a probe of the server with a client of its own, on 2 shared cores, before the cap ' +
      'on password checks. PGlite in memory: first answer after 1.3–1.6 s, resident memory 295–341 MB. Refreshes of ' +
      '200 sessions, every refresh rotating: 992/s at concurrency 16 (p99 34 ms), 966/s at 64. Sign-ins: 54/s ' +
      "(scrypt-bound). This script's own figures for the same things are above: the refresh and login routes of " +
      'each engine, and the cold start.',
    '',
  ].join('\n'),
);

const report = [
  '# Reference server: load benchmark',
  '',
  `Written by \`npm run bench:server${smoke ? ' -- --smoke' : ''}\` on ${new Date().toISOString().slice(0, 10)}. ` +
    `${describeMachine()}. Loopback only: autocannon with ${connections} connections, ${duration} s per route, ` +
    'after 1 s of warm-up (none in --smoke); the server is `node projects/reference-server/dist/main.js` (LOG_LEVEL=warn) ' +
    'with the demo data, in its own process.',
  '',
  ...sections,
].join('\n');
await mkdir(dirname(out), { recursive: true });
// Formatted as the repository's Markdown is, so the committed file passes `prettier --check`.
await writeFile(out, await format(report, { ...(await resolveConfig(out)), parser: 'markdown' }));
console.log(report);
console.log(`written to ${out}`);
