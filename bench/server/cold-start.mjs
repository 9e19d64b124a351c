// `npm run build:server && node bench/server/cold-start.mjs`: how long the built server takes from
// spawn to its first HTTP answer, and its resident memory then, on PGlite: in memory, in a new
// (empty) data folder, and in the data folder of an earlier start. Then the same start-up split into
// its phases, in one process doing what main.ts does with a mark after each phase. Every figure is
// the median of --runs runs (the kinds take turns, so a burst of load on the shared cores hits all of
// them alike); the server is `node projects/reference-server/dist/main.js` with the demo data.
// `npm run bench:server` includes it (3 runs).
//
//   --runs=<n>          runs of each kind (default 5)
//   --without-template  also the first start after an install: each of those runs deletes the PGlite
//                       template (node_modules/.cache/ngx-token-refresh-reference-server), which
//                       that start then makes again
//   --write             replace the "Cold start" section of bench/SERVER-RESULTS.md with this run's
/* global fetch */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { cpuMs, describeMachine, freePort, memory } from './process-stats.mjs';
import { jwtSecret, root } from './settings.mjs';

const dist = join(root, 'projects/reference-server/dist');
const templateCache = join(root, 'node_modules/.cache/ngx-token-refresh-reference-server');

/** The "Cold start" section of the report: `runs` runs of each kind, taking turns. */
export async function coldStart({ runs = 5, withoutTemplate = false } = {}) {
  const scratch = await mkdtemp(join(tmpdir(), 'cold-start-'));
  const newFolder = () => mkdtemp(join(scratch, 'new-'));
  const kept = join(scratch, 'kept');
  const kinds = [
    { name: 'in memory', env: async () => ({}) },
    { name: 'new data folder (empty)', env: async () => ({ PGLITE_DATA_DIR: await newFolder() }) },
    { name: 'data folder of an earlier start', env: async () => ({ PGLITE_DATA_DIR: kept }) },
  ];
  if (withoutTemplate) {
    kinds.push({
      name: 'new data folder, first start after an install (no template yet)',
      env: async () => {
        await rm(templateCache, { recursive: true, force: true });
        return { PGLITE_DATA_DIR: await newFolder() };
      },
    });
  }
  const starts = new Map(kinds.map((kind) => [kind.name, []]));
  const split = new Map([
    ['in memory', []],
    ['new data folder (empty)', []],
  ]);
  try {
    // Makes the folder the third kind reopens (and the template, when there is none).
    await startServer({ PGLITE_DATA_DIR: kept });
    for (let run = 0; run < runs; run++) {
      for (const kind of kinds) {
        const result = await startServer(await kind.env());
        starts.get(kind.name).push(result);
        console.error(`cold start, ${kind.name}, run ${run + 1}: ${Math.round(result.ms)} ms, ${result.rss} MB`);
      }
      split.get('in memory').push(phases({}));
      split.get('new data folder (empty)').push(phases({ PGLITE_DATA_DIR: await newFolder() }));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const startRows = [...starts].map(([name, values]) => {
    const middle = (key) => Math.round(median(values.map((value) => value[key])));
    const times = values.map((value) => Math.round(value.ms));
    return (
      `| ${name} | ${middle('ms')} | ${Math.min(...times)}-${Math.max(...times)} | ${middle('cpu')} | ` +
      `${middle('rss')} | ${middle('rssSettled')} | ${middle('peak')} |`
    );
  });
  const phaseRows = [];
  for (const [name, values] of split) {
    let previous = { at: 0, cpu: 0 };
    for (const label of Object.keys(values[0])) {
      const at = median(values.map((value) => value[label].at));
      const cpu = median(values.map((value) => value[label].cpu));
      const rss = median(values.map((value) => value[label].rss));
      phaseRows.push(
        `| ${name} | ${label} | ${Math.round(at - previous.at)} | ${Math.round(cpu - previous.cpu)} | ` +
          `${Math.round(at)} | ${Math.round(rss)} |`,
      );
      previous = { at, cpu };
    }
  }
  return [
    '## Cold start',
    '',
    `Medians of ${runs} runs of each kind, taking turns (\`node bench/server/cold-start.mjs` +
      `${withoutTemplate ? ' --without-template' : ''}\`, ${new Date().toISOString().slice(0, 10)}). ` +
      `${describeMachine()}.`,
    '',
    'Spawn of `dist/main.js` to its first HTTP answer (`GET /openapi.json`; migrations and demo data done), the ' +
      "server's CPU time (all its threads) and resident memory then, 2 s after a first login, and at its peak:",
    '',
    '| PGlite | first answer ms | range ms | CPU ms | resident MB | 2 s later MB | peak MB |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...startRows,
    '',
    'The same start-up in one process, one phase after another: wall and CPU ms of each phase (CPU of all ' +
      'threads: the WebAssembly compilers run beside the main one), ms since the process began, resident MB at ' +
      'its end. "Modules loaded" includes Node itself; the lone scrypt phase is not part of a start, it shows ' +
      'what the 2 hashes of the demo data cost.',
    '',
    '| PGlite | phase | ms | CPU ms | at ms | resident MB |',
    '|---|---|---:|---:|---:|---:|',
    ...phaseRows,
    '',
  ].join('\n');
}

/** Starts dist/main.js with `env`; at its first answer, the time, memory and CPU; then memory after a login. */
async function startServer(env) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [join(dist, 'main.js')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET: jwtSecret,
      COOKIE_SECURE: 'false',
      NODE_ENV: 'development',
      ...env,
    },
  });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('the server did not answer within 120 s');
      try {
        await (await fetch(`${url}/openapi.json`)).arrayBuffer();
        break;
      } catch {
        await delay(10);
      }
    }
    const ms = performance.now() - started;
    const rss = await memory(child.pid, 'VmRSS');
    const cpu = await cpuMs(child.pid);
    const login = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
    await delay(2000);
    return { ms, rss, cpu, rssSettled: await memory(child.pid, 'VmRSS'), peak: await memory(child.pid, 'VmHWM') };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done() : child.once('exit', done)));
  }
}

/** main.ts's start-up in one process, phase after phase: { [phase]: { at, cpu, rss } } at its end. */
const PHASES_SCRIPT = `
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
const marks = {};
const mark = (name) => {
  const { user, system } = process.cpuUsage();
  const rss = Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  marks[name] = { at: performance.now(), cpu: (user + system) / 1000, rss };
};
const dist = process.env.BENCH_DIST;
const { buildServer } = await import(dist + '/build-server.js');
const { readConfig } = await import(dist + '/read-config.js');
const { seedDemoData } = await import(dist + '/seed-demo-data.js');
const { hashPassword } = await import(dist + '/password-hash.js');
const { createSqlRepository } = await import(dist + '/sql-repository.js');
const { createPgliteEngine } = await import(dist + '/pglite-engine.js');
const { migrate } = await import(dist + '/migrate.js');
mark('modules loaded');
const config = readConfig(process.env);
await Promise.all(['lovelace', 'turing'].map((password) => hashPassword(password)));
mark('scrypt of 2 passwords, at once (alone, for its cost)');
const engine = await createPgliteEngine(config.pgliteDataDir);
mark('PGlite started');
await migrate(engine);
mark('migrations');
const repository = createSqlRepository(engine);
await seedDemoData(repository);
mark('demo data (its 2 scrypt hashes and the inserts)');
const app = await buildServer({ config, repository });
await app.ready();
mark('Fastify, plugins and OpenAPI ready');
const address = await app.listen({ port: 0, host: '127.0.0.1' });
await (await fetch(address + '/openapi.json')).arrayBuffer();
mark('first answer');
console.log(JSON.stringify(marks));
await app.close();
await engine.close();
`;

function phases(env) {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', PHASES_SCRIPT], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', JWT_SECRET: jwtSecret, BENCH_DIST: dist, ...env },
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !line.startsWith('{')) throw new Error(`phases failed: ${run.stderr.slice(-500)}`);
  return JSON.parse(line);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const runs = Number(args.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length) ?? 5);
  const section = await coldStart({ runs, withoutTemplate: args.includes('--without-template') });
  console.log(section);
  if (args.includes('--write')) {
    const { format, resolveConfig } = await import('prettier');
    const file = join(root, 'bench/SERVER-RESULTS.md');
    const report = await readFile(file, 'utf8');
    const start = report.indexOf('\n## Cold start\n');
    const end = start < 0 ? -1 : report.indexOf('\n## ', start + 1);
    const updated =
      start < 0
        ? `${report.trimEnd()}\n\n${section}`
        : `${report.slice(0, start + 1)}${section}${end < 0 ? '' : report.slice(end)}`;
    await writeFile(file, await format(updated, { ...(await resolveConfig(file)), parser: 'markdown' }));
    console.log(`written to ${file}`);
  }
}
