// `npm run bench:bff` (node bench/bff/run.mjs): load benchmark of the backend-for-frontend of
// ngx-token-refresh/bff, on loopback only and bounded in time. Three kinds of process: this one (the
// load), the BFF (createBff from the library's source through tsx, on node:http), and the provider
// (the e2e harness's oidc-provider, strict rotation) with the API stub. Two parts:
// - the proxy's overhead: one API call made directly with a bearer token, through a bare fetch proxy (the
//   floor of any proxy on fetch) and through the BFF with the session cookie, at the same connections, in
//   rotating rounds (a ratio in one run); memory store, and PostgreSQL when DATABASE_URL is set;
// - refresh grants per expiry: N sessions x M calls/s (an open loop) with short-lived access tokens over
//   several expiries, counting the provider's grants; one instance on the memory store, and two
//   instances on one PostgreSQL when DATABASE_URL is set (calls alternate between them).
// It writes a Markdown report, checks that its figures parse (bff-figures.mjs), and exits 1 when a
// call failed or a grant went wrong (reuse, a refresh failure, a grant that no expiry needed).
//
//   --smoke              about 10 s, for CI: the overhead on the memory store, 1 round of 1 s at 10 connections;
//                        2 sessions for 5 s on one instance and the memory store, or with DATABASE_URL on two
//                        instances and PostgreSQL
//   --out=<file>         where to write (default bench/BFF-RESULTS.md; --smoke: test-results/bench-bff-smoke.md)
//   --note=<text>        a sentence on the run's circumstances, written under the machine line
//   --connections=1,10   autocannon's connections in the overhead part (default 1,10; --smoke: 10)
//   --rounds=<n>         alternating rounds per connection count (default 8; --smoke: 1)
//   --round-seconds=<s>  seconds of each path per round (default 2; --smoke: 1)
//   --sessions=10,50     the session counts of the grants part (default 10,50; --smoke: 2)
//   --rate=<n>           calls per second of each session (default 10, in bursts of 5)
//   --seconds=<s>        seconds of load per row of the grants part (default 30; --smoke: 5)
//   --only=overhead      one part alone (or --only=grants), for trying things out
//   --dist               the BFF from the built package (npm run build:lib first) instead of the source
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';

import { format, resolveConfig } from 'prettier';

import { describeMachine, freePort } from '../server/process-stats.mjs';
import { bffFigures } from './bff-figures.mjs';
import { grantsPerExpiry } from './grants-per-expiry.mjs';
import { percentile } from './percentile.mjs';
import { OVERHEAD_PATHS, proxyOverhead } from './proxy-overhead.mjs';
import { API_PATH, GRANTS, OVERHEAD, databaseUrl, dist, note, only, out, smoke } from './settings.mjs';
import { startUpstream } from './start-upstream.mjs';

const began = performance.now();
const machine = describeMachine();
const engines = [{ name: 'memory', label: 'memory store', databaseUrl: null }];
if (databaseUrl && !smoke) engines.push({ name: 'PostgreSQL', label: 'PostgreSQL store', databaseUrl });

// The app's origin: the port of the (first) BFF instance, registered at the provider for the sign-in.
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;

const overhead = [];
if (only !== 'grants') {
  // An hour-long access token: no refresh during this part.
  const upstream = await startUpstream({ accessTokenTtl: 3600, baseUrl });
  try {
    for (const engine of engines) {
      console.log(`proxy overhead, ${engine.label}...`);
      overhead.push({
        engine,
        rows: await proxyOverhead({ upstream, baseUrl, port, databaseUrl: engine.databaseUrl }),
      });
    }
  } finally {
    await upstream.stop();
  }
}

const grants = [];
if (only !== 'overhead') {
  const upstream = await startUpstream({ accessTokenTtl: GRANTS.accessTokenTtl, baseUrl });
  try {
    // In --smoke with DATABASE_URL, the one row is the two instances on PostgreSQL: CI keeps the
    // cross-instance gate working there, within the smoke run's time.
    const setups =
      smoke && databaseUrl
        ? [{ databaseUrl, instances: 2 }]
        : engines.map((engine) => ({ databaseUrl: engine.databaseUrl, instances: engine.databaseUrl ? 2 : 1 }));
    for (const setup of setups) {
      for (const sessions of GRANTS.sessions) {
        console.log(`grants per expiry, ${setup.databaseUrl ? 'PostgreSQL' : 'memory'}, ${sessions} sessions...`);
        grants.push(await grantsPerExpiry({ upstream, baseUrl, port, ...setup, sessions }));
      }
    }
  } finally {
    await upstream.stop();
  }
}

const seconds = (performance.now() - began) / 1000;
// The command as run; the database's address stays out, and the note is written out below anyway.
const shownArgs = process.argv.slice(2).filter((arg) => !arg.startsWith('--note='));
const command =
  `${databaseUrl ? 'DATABASE_URL=<a scratch database> ' : ''}npm run bench:bff` +
  (shownArgs.length ? ` -- ${shownArgs.join(' ')}` : '');
const report = [
  '# Backend-for-frontend: load benchmark',
  '',
  `Written by \`${command}\` on ${new Date().toISOString().slice(0, 10)} ` +
    `in ${Math.round(seconds)} s. ${machine}; ${loadavg()[0].toFixed(1)} at the end.` +
    (note ? ` ${note}` : ''),
  '',
  'Loopback only, three kinds of process: the load (autocannon, or an open loop of its own), the BFF ' +
    `(\`createBff\` of \`ngx-token-refresh/bff\`, ${dist ? 'from the built package' : "from the library's source through tsx"}, on \`node:http\` with a ` +
    'Node-to-Web `Request` adapter, as an app server mounts it; Bearer tokens, no DPoP), and the provider ' +
    "(the e2e harness's oidc-provider with strict rotation) with the API: a stub whose " +
    `\`GET ${API_PATH}\` looks the token up in the provider's token store (a few µs) and answers a small JSON.`,
  '',
  '## How to read',
  '',
  'The ratios are the figures to quote: in the first part the paths ran in alternating rounds on the same ' +
    'shared cores, so whatever else ran there slowed all of them; the absolute req/s and milliseconds depend on ' +
    'the machine and its load. The API here answers in a few µs of its own, so the throughput ratios are the ' +
    'worst case: against an API that takes t ms to answer, a call through the BFF takes t plus the "added per ' +
    'call" figure. Through the BFF a call costs a second HTTP hop on loopback and a `fetch` to the API (what the ' +
    "bare proxy costs too), plus the BFF's own work: the incoming call as a Web `Request`, the session looked up " +
    '(the SHA-256 of the cookie, then a `Map` or a PostgreSQL `SELECT`), the CSRF check, and the answer relayed ' +
    "as a Web `Response`. At 10 connections the processes share the cores, so each proxy's CPU per call bounds " +
    "its throughput. In the second part an expiry is a session's access token replaced once it was due (the " +
    'BFF refreshes a quarter of a lifetime ahead); **1.00 grant per expiry** means every due token was replaced ' +
    'by exactly one refresh grant, whichever instance the calls reached, and no grant was spent on a token that ' +
    'was not due ("premature"). "Reuse detected" would be a rotated refresh token presented again: the provider ' +
    'then revokes the sign-in, and the user is signed out.',
  '',
  ...(overhead.length ? overheadSection(overhead) : []),
  ...(grants.length ? grantsSection(grants) : []),
].join('\n');

await mkdir(dirname(out), { recursive: true });
// Formatted as the repository's Markdown is, so the committed file passes `prettier --check`.
const written = await format(report, { ...(await resolveConfig(out)), parser: 'markdown' });
await writeFile(out, written);
console.log(written);
console.log(`written to ${out} in ${seconds.toFixed(1)} s`);

// The figures a README may quote must parse from what was just written.
if (!only) {
  for (const [key, value] of bffFigures(written, { postgres: engines.length > 1 })) console.log(`${key}: ${value}`);
}

const wrong = grants.filter(
  (row) =>
    row.failed > 0 || row.reuse > 0 || row.refreshFailures > 0 || row.premature > 0 || row.grants !== row.expiries,
);
if (wrong.length > 0) {
  console.error(`the gate failed in ${wrong.length} row(s): ${JSON.stringify(wrong, null, 2)}`);
  process.exitCode = 1;
}

function overheadSection(engines) {
  const lines = [
    '## Proxy overhead',
    '',
    'The same call three ways at the same connections: directly with the bearer token; through a bare proxy ' +
      '(`node:http` in, `fetch` out with the same token, nothing else: the floor of any proxy built on `fetch`, ' +
      'as the BFF is); and through the BFF with the session cookie and `x-csrf: 1`. ' +
      `${OVERHEAD.rounds} round(s) of ${OVERHEAD.roundSeconds} s per path and connection count, the paths taking ` +
      'turns (ABC, BCA, CAB, ...)' +
      (OVERHEAD.warmUpSeconds ? `, after ${OVERHEAD.warmUpSeconds} s of each not counted` : '') +
      "; latencies are each answer's, as autocannon timed it; CPU is per call, of the API's process (provider " +
      "and stub) and of the proxy's, at each path's own rate (a process that waits between calls spends more on " +
      'each).',
    '',
  ];
  const ratios = [];
  for (const { engine, rows } of engines) {
    lines.push(
      `### ${engine.label}`,
      '',
      '| connections | path | req/s | p50 ms | p99 ms | API CPU µs/call | proxy CPU µs/call |',
      '| ---: | --- | ---: | ---: | ---: | ---: | ---: |',
    );
    for (const { connections, paths, ratios: rounds } of rows) {
      for (const { name, label } of OVERHEAD_PATHS) {
        const path = paths[name];
        lines.push(
          `| ${connections} | ${label} | ${Math.round(path.requests / path.seconds)} | ` +
            `${ms(percentile(path.latencies, 0.5))} | ${ms(percentile(path.latencies, 0.99))} | ` +
            `${Math.round(path.apiCpuUs)} | ${name === 'direct' ? '–' : Math.round(path.proxyCpuUs)} |`,
        );
      }
      const p50 = (name) => percentile(paths[name].latencies, 0.5);
      ratios.push(
        `| ${engine.name}, ${connections} connection${connections === 1 ? '' : 's'} | ${describeRatios(rounds.bff)} | ` +
          `${(p50('bff') / p50('direct')).toFixed(2)}x | ${ms(p50('bff') - p50('direct'))} ms | ` +
          `${describeRatios(rounds.bare)} | ${ms(p50('bare') - p50('direct'))} ms |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '### BFF / direct',
    '',
    "Throughput: the median of the rounds' paired ratios (the proxy's req/s over the direct req/s of the same " +
      'round), and their range. Median latency: the p50 through the BFF over the direct p50, and their ' +
      'difference, the time the BFF adds to a call; the same difference for the bare proxy.',
    '',
    '| store, connections | req/s | p50 latency | added per call (p50) | bare proxy: req/s | bare proxy: added (p50) |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...ratios,
    '',
  );
  return lines;
}

function grantsSection(rows) {
  const interval = (GRANTS.burst * 1000) / GRANTS.callsPerSecond;
  const lines = [
    '## Refresh grants per expiry under load',
    '',
    `Each session calls the API through the BFF ${GRANTS.callsPerSecond} times a second, in bursts of ` +
      `${GRANTS.burst} calls at once every ${interval} ms (the sessions' bursts spread over that interval), on ` +
      `a schedule that does not wait for the answers (an open loop), for ${GRANTS.seconds} s; access tokens live ` +
      `${GRANTS.accessTokenTtl} s. With two instances the calls alternate between them, so a burst reaches ` +
      "both. Counted from the first call to the last answer: the provider's refresh grants, refusals, reuse " +
      "and revocations (its own events), the API's 401s, and the expiries from the tokens the API saw " +
      '(a token replaced once due; "token life": from its first call to its successor\'s). "Late": how far ' +
      "the load's schedule fell behind at worst. The latencies are those of calls spaced in time, which wake " +
      'idle processes on a shared machine: longer than in the closed loop above.',
    '',
    '| setup | calls | failed | expiries | refresh grants | grants per expiry | premature | reuse detected | ' +
      'refresh failures | revoked | API 401 | token life s | p50 ms | p99 ms | late ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    lines.push(
      `| ${setupLabel(row)} | ${row.calls} | ${row.failed} | ${row.expiries} | ${row.grants} | ` +
        `**${perExpiry(row.grants, row.expiries)}** | ${row.premature} | ${row.reuse} | ${row.refreshFailures} | ` +
        `${row.revoked} | ${row.api401} | ${row.meanLifeMs === null ? '–' : (row.meanLifeMs / 1000).toFixed(2)} | ` +
        `${ms(row.p50)} | ${ms(row.p99)} | ${Math.round(row.lateMs)} |`,
    );
  }
  const sum = (field) => rows.reduce((total, row) => total + row[field], 0);
  lines.push(
    '',
    `All rows: **${perExpiry(sum('grants'), sum('expiries'))}** refresh grants per session per expiry ` +
      `(${sum('grants')} grants, ${sum('expiries')} expiries), **${sum('failed')}** failed calls of ${sum('calls')}, ` +
      `**${sum('reuse')}** reuse detected.`,
    '',
  );
  for (const row of rows) {
    if (row.failed > 0) lines.push(`- ${setupLabel(row)}, failed calls by answer: ${JSON.stringify(row.failures)}`);
    if (row.warnings.length > 0) {
      lines.push(`- ${setupLabel(row)}, the BFF warned ${row.warnings.length} time(s), first: ${row.warnings[0]}`);
    }
  }
  lines.push('');
  return lines;
}

function setupLabel({ store, instances, sessions }) {
  return `${store}, ${instances} instance${instances === 1 ? '' : 's'}, ${sessions} sessions`;
}

function perExpiry(grants, expiries) {
  return expiries ? (grants / expiries).toFixed(2) : 'no expiry';
}

function describeRatios(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
  const range = sorted.length > 1 ? `, ${sorted[0].toFixed(2)}–${sorted.at(-1).toFixed(2)}` : '';
  return `**${median.toFixed(2)}x** (${sorted.length} round${sorted.length === 1 ? '' : 's'}${range})`;
}

function ms(value) {
  return value.toFixed(2);
}
