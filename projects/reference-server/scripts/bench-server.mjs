/* global fetch, TextEncoder, crypto */
// `npm run bench:server`: load benchmark of the built server (dist/main.js), on loopback only and
// bounded in time. For each engine (PGlite always; PostgreSQL when DATABASE_URL is set, whose
// database it migrates and seeds, so give it a scratch one) it starts the server as `npm run server`
// would, measures the start-up time and memory, then loads each route with autocannon for a few
// seconds and writes throughput, p50/p99 latency and the ratios to a Markdown file. It also measures
// PGlite's own start-up and memory under its options.
//
//   --smoke          about 5 s in all: PGlite only, 1 s per route, no PGlite options table (for CI)
//   --out=<file>     where to write (default bench/SERVER-RESULTS.md; --smoke: test-results/bench-server-smoke.md)
//   --duration=<s>   seconds per route (default 5)
//   --rounds=<n>     interleaved 1-s rounds of the token-check routes (default 30; --smoke: 1)
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';
import { format, resolveConfig } from 'prettier';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const out = resolve(root, option('out') ?? (smoke ? 'test-results/bench-server-smoke.md' : 'bench/SERVER-RESULTS.md'));
const duration = Number(option('duration') ?? (smoke ? 1 : 5));
const rounds = Number(option('rounds') ?? (smoke ? 1 : 30));
const roundSeconds = 1;
const connections = 10;
const databaseUrl = process.env.DATABASE_URL || null;
const vendorType = 'application/vnd.showcase.v1+json';
/** The server's JWT_SECRET here, so this script can sign tokens the server accepts. */
const jwtSecret = 'benchmark-secret-of-the-reference-server-0123456789';
/**
 * Distinct tokens sent in turn on the "new token" route: twice the 1,000 the server remembers, so in
 * this order every call is a token it has forgotten (a server that forgets each client's token between
 * two of its calls).
 */
const NEW_TOKEN_POOL = 2000;

/**
 * The routes loaded, in order; `token: true` adds the demo admin's access token, `token: 'new'` a
 * different one on every call.
 */
const ROUTES = [
  {
    name: 'no-token',
    label: 'GET /api/v1/users/0, no token → 401',
    path: '/api/v1/users/0',
    token: false,
    status: 401,
  },
  {
    name: 'jwt-only',
    label: 'GET /api/v1/users/0, valid token → 400 (JWT checked, no database)',
    path: '/api/v1/users/0',
    token: true,
    status: 400,
  },
  {
    name: 'jwt-new',
    label: 'GET /api/v1/users/0, a token not seen before on every call → 400 (signature checked each time)',
    path: '/api/v1/users/0',
    token: 'new',
    status: 400,
  },
  {
    name: 'get-user',
    label: 'GET /api/v1/users/1 → 200 (JWT + database)',
    path: '/api/v1/users/1',
    token: true,
    status: 200,
  },
  {
    name: 'list-page',
    label: 'GET /api/v1/users?page=2&pageSize=10 → 200',
    path: '/api/v1/users?page=2&pageSize=10',
    token: true,
    status: 200,
  },
  {
    name: 'accept-get',
    label: `GET /api/users/1, Accept: ${vendorType} → 200`,
    path: '/api/users/1',
    token: true,
    status: 200,
    headers: { Accept: vendorType },
  },
];

const engines = [{ name: 'PGlite (in memory)', env: {} }];
if (databaseUrl && !smoke) engines.push({ name: 'PostgreSQL', env: { DATABASE_URL: databaseUrl } });

const sections = [await tokenCheckCost()];
for (const engine of engines) sections.push(await benchEngine(engine));
if (!databaseUrl) sections.push('PostgreSQL: skipped (DATABASE_URL is not set).\n');
else if (smoke) sections.push('PostgreSQL: skipped in --smoke.\n');
if (!smoke) sections.push(await pgliteOptions());

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

async function benchEngine(engine) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET: jwtSecret,
      COOKIE_SECURE: 'false',
      ...engine.env,
    },
  });
  try {
    await waitUntilUp(url, child);
    const startupMs = performance.now() - started;
    const rssAtStart = await memory(child.pid, 'VmRSS');
    const login = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
    const { accessToken } = await login.json();
    const newTokens = await signTokens(NEW_TOKEN_POOL);
    const rows = [];
    const results = {};
    for (const route of ROUTES) {
      if (!smoke) await load(url, route, accessToken, newTokens, 1);
      const cpuBefore = await cpuMs(child.pid);
      const result = await load(url, route, accessToken, newTokens, duration);
      // The server's own CPU time per answer: what the route costs, whatever else the shared cores run.
      const cpuPerRequest = (((await cpuMs(child.pid)) - cpuBefore) * 1000) / result.requests.total;
      const expected = result.statusCodeStats?.[route.status]?.count ?? 0;
      if (expected !== result.requests.total || result.errors > 0) {
        throw new Error(`${route.label}: ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`);
      }
      results[route.name] = { ...result, cpuPerRequest };
      rows.push(
        `| ${route.label} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ` +
          `${Math.round(cpuPerRequest)} |`,
      );
    }
    const settled = await settleTokenCheck(url, accessToken, newTokens, child.pid);
    const peak = await memory(child.pid, 'VmHWM');
    const ratio = (a, b) => (results[a].requests.average / results[b].requests.average).toFixed(2);
    const cpuRatio = (a, b) => (results[b].cpuPerRequest / results[a].cpuPerRequest).toFixed(2);
    return [
      `## ${engine.name}`,
      '',
      `Start-up (spawn to first answer, migrations and demo data included): ${Math.round(startupMs)} ms. ` +
        `Resident memory after start-up: ${rssAtStart} MB; peak during the run: ${peak} MB.`,
      '',
      '| route | req/s | p50 ms | p99 ms | server CPU µs/req |',
      '|---|---:|---:|---:|---:|',
      ...rows,
      '',
      `- JWT-checked vs 401 without a token (same route): **${ratio('jwt-only', 'no-token')}x** in req/s, ` +
        `**${cpuRatio('jwt-only', 'no-token')}x** in server CPU per answer (the inverse ratio of CPU µs/req)`,
      `- a token not seen before on every call vs 401 without a token: ${ratio('jwt-new', 'no-token')}x in req/s, ` +
        `${cpuRatio('jwt-new', 'no-token')}x in server CPU per answer`,
      `- GET /users/1 (JWT + database) vs 401 without a token: ${ratio('get-user', 'no-token')}x in req/s, ` +
        `${cpuRatio('get-user', 'no-token')}x in server CPU per answer`,
      '',
      ...settled,
      '',
    ].join('\n');
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  }
}

/**
 * The ratios of the token-checked routes to the 401 route, settled: one run of each says little on
 * shared cores, where a run swings by tens of percent. Here the three routes take turns for `rounds`
 * rounds of `roundSeconds` each, in the orders ABC BCA CAB ... so that none always runs first, and
 * every round gives one paired ratio per checked route; the median of those is the result, with its
 * range.
 */
async function settleTokenCheck(url, accessToken, newTokens, pid) {
  const [noToken, checked, fresh] = ['no-token', 'jwt-only', 'jwt-new'].map((name) =>
    ROUTES.find((route) => route.name === name),
  );
  const order = [noToken, checked, fresh];
  const ratios = { [checked.name]: { perSecond: [], cpu: [] }, [fresh.name]: { perSecond: [], cpu: [] } };
  for (let round = 0; round < rounds; round++) {
    const measured = new Map();
    const shift = round % order.length;
    for (const route of [...order.slice(shift), ...order.slice(0, shift)]) {
      const cpuBefore = await cpuMs(pid);
      const result = await load(url, route, accessToken, newTokens, roundSeconds);
      if ((result.statusCodeStats?.[route.status]?.count ?? 0) !== result.requests.total || result.errors > 0) {
        throw new Error(`${route.label}: ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`);
      }
      measured.set(route, {
        perSecond: result.requests.total / roundSeconds,
        cpuPerRequest: ((await cpuMs(pid)) - cpuBefore) / result.requests.total,
      });
    }
    for (const route of [checked, fresh]) {
      ratios[route.name].perSecond.push(measured.get(route).perSecond / measured.get(noToken).perSecond);
      ratios[route.name].cpu.push(measured.get(noToken).cpuPerRequest / measured.get(route).cpuPerRequest);
    }
  }
  const describe = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    const median = sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
    return (
      `**${median.toFixed(2)}x** (median of ${values.length}; from ${sorted[0].toFixed(2)} to ` +
      `${sorted.at(-1).toFixed(2)}: ${values.map((value) => value.toFixed(2)).join(', ')})`
    );
  };
  return [
    `Token check settled: the three routes above took turns for ${rounds} rounds of ${roundSeconds} s each ` +
      '(ABC, BCA, CAB, ...), each round giving one paired ratio of each token-checked route to the 401 route.',
    '',
    'The same token on every call (a client between refreshes; its signature is checked once):',
    '',
    `- in req/s: ${describe(ratios[checked.name].perSecond)}`,
    `- in server CPU per answer (the inverse ratio of CPU time per answer): ${describe(ratios[checked.name].cpu)}`,
    '',
    `A token not seen before on every call (the worst case: ${NEW_TOKEN_POOL} tokens in turn, twice what the ` +
      'server remembers):',
    '',
    `- in req/s: ${describe(ratios[fresh.name].perSecond)}`,
    `- in server CPU per answer: ${describe(ratios[fresh.name].cpu)}`,
  ];
}

/**
 * Loads one route. Every route's request is built afresh for every call (`setupRequest`), as the
 * new-token route must be, so that autocannon, on the same cores as the server, does the same work
 * for each route and the req/s ratios compare the server alone.
 */
function load(url, route, accessToken, newTokens, seconds) {
  let next = 0;
  const authorization = () =>
    route.token === 'new'
      ? { Authorization: `Bearer ${newTokens[next++ % newTokens.length]}` }
      : route.token
        ? { Authorization: `Bearer ${accessToken}` }
        : {};
  return autocannon({
    url: url + route.path,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, ...route.headers, ...authorization() },
        }),
      },
    ],
  });
}

/** The built server's access tokens (`dist/access-tokens.js`) with the benchmark server's secret. */
async function benchTokens() {
  const { createAccessTokens } = await import(new URL('../dist/access-tokens.js', import.meta.url).href);
  return createAccessTokens({
    secret: new TextEncoder().encode(jwtSecret),
    ttlSeconds: 900,
    now: Date.now,
    expiredGraceSeconds: 0,
  });
}

/** `count` access tokens for the demo admin, each with its own session id, signed as the server signs them. */
async function signTokens(count) {
  const tokens = await benchTokens();
  return Array.from({ length: count }, () =>
    tokens.issue({ username: 'ada', role: 'admin', familyId: crypto.randomUUID() }),
  );
}

/**
 * What checking a token costs by itself, in this process, without HTTP: `verify` of the built server
 * on a token it has seen (the verdict cache's path, what every call after a client's first takes)
 * and on tokens it has not (HMAC-SHA256 and claim parsing). Steadier than any HTTP run, and the
 * reason for the ratio the runs below measure.
 */
async function tokenCheckCost() {
  const tokens = await benchTokens();
  const count = smoke ? 2_000 : 20_000;
  const fresh = await signTokens(count);
  const microseconds = (list) => {
    const started = performance.now();
    for (const token of list) if (!tokens.verify(token).ok) throw new Error('a benchmark token was refused');
    return ((performance.now() - started) * 1000) / list.length;
  };
  // First checks: each token new to the cache (whose 1,000 places they also churn).
  const first = microseconds(fresh);
  // Then one token over and over, as a client sends it until it is replaced.
  const same = Array(count).fill(fresh[0]);
  microseconds(same);
  const cached = Math.min(microseconds(same), microseconds(same), microseconds(same));
  return [
    '## Checking a token, without HTTP',
    '',
    `\`verify\` of \`dist/access-tokens.js\`, in this process, ${count} times each: ` +
      `**${cached.toFixed(1)} µs** for a token already seen (the verdict cache, what every call after a ` +
      `client's first takes), **${first.toFixed(1)} µs** for a token not seen before (signature and claims). ` +
      'Compare with the server CPU per answer of the 401 route below.',
    '',
  ].join('\n');
}

/** PGlite alone (no server): time to a first query and resident memory, per option. */
async function pgliteOptions() {
  const dataDir = await mkdtemp(join(tmpdir(), 'pglite-bench-'));
  const variants = [
    ["in memory, PGlite's defaults (shared_buffers=128MB)", 'undefined', '{}'],
    ['in memory, relaxedDurability: true', 'undefined', '{ relaxedDurability: true }'],
    ['in memory, initialMemory: 128 MiB (the least it takes)', 'undefined', `{ initialMemory: ${128 * 2 ** 20} }`],
    [
      'in memory, shared_buffers=16MB (what the server runs with)',
      'undefined',
      "{ postgresqlconf: 'shared_buffers=16MB' }",
    ],
    ['data folder, first start (initdb)', JSON.stringify(dataDir), '{}'],
    ['data folder, second start', JSON.stringify(dataDir), '{}'],
  ];
  const rows = [];
  try {
    for (const [label, dir, options] of variants) {
      const script =
        "import { PGlite } from '@electric-sql/pglite';" +
        'const t = performance.now();' +
        `const db = await PGlite.create(${dir}, ${options});` +
        "await db.query('select 1');" +
        'const ms = performance.now() - t;' +
        "const rss = /VmRSS:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1];" +
        'console.log(JSON.stringify({ ms, rss: Number(rss) }));' +
        'await db.close();';
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
      const line = run.stdout.trim().split('\n').pop() ?? '';
      if (run.status !== 0 || !line.startsWith('{')) {
        rows.push(`| ${label} | failed: ${(run.stderr.trim().split('\n').pop() ?? '').slice(0, 120)} | |`);
        continue;
      }
      const { ms, rss } = JSON.parse(line);
      rows.push(`| ${label} | ${Math.round(ms)} | ${Math.round(rss / 1024)} |`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return [
    '## PGlite options',
    '',
    'PGlite alone in a fresh Node process: `PGlite.create(dataDir, options)` then `select 1`.',
    '',
    '| configuration | start-up ms | resident MB |',
    '|---|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

async function waitUntilUp(url, child) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/openapi.json`);
      return;
    } catch {
      await delay(20);
    }
  }
  throw new Error('the server did not answer within 120 s');
}

/** User and system CPU time of a process so far, in milliseconds (/proc/<pid>/stat, clock ticks of 10 ms). */
async function cpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A line of /proc/<pid>/status, in MB. */
async function memory(pid, field) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function describeMachine() {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return (
    `Machine: ${cpus().length} cores (${model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `${process.platform}, load average ${loadavg()[0].toFixed(1)} at the start (the cores are shared)`
  );
}
