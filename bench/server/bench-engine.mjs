/* global fetch */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import autocannon from 'autocannon';

import { cpuMs, freePort, memory } from './process-stats.mjs';
import {
  connections,
  duration,
  jwtSecret,
  NEW_TOKEN_POOL,
  root,
  rounds,
  roundSeconds,
  ROUTES,
  smoke,
} from './settings.mjs';
import { signTokens } from './token-check-cost.mjs';

/**
 * One engine: starts the built server on it as `npm run server` would, measures start-up and memory,
 * loads every route, settles the token-check ratios, and returns the engine's section of the report.
 */
export async function benchEngine(engine) {
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
