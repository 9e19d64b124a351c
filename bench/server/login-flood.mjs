/* global fetch */
// Sign-ins under a hash flood: what the cap on concurrent password checks (PASSWORD_CHECK_CONCURRENCY,
// PASSWORD_CHECK_QUEUE) does to real people signing in while an attacker makes the server hash as fast
// as it can. Part of `npm run bench:server`; alone: `node bench/server/login-flood.mjs [--smoke]`
// (after `npm run build:server`), which prints its section.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { cpuMs, describeMachine } from './process-stats.mjs';
import { smoke } from './settings.mjs';
import { startServer } from './start-server.mjs';

/** Connections of the flood: each sends a sign-in for a new name from a new address as soon as the last is answered. */
export const FLOOD_CONNECTIONS = 64;
/** How often each real person signs in (one after another, at most this often), in milliseconds. */
const PERSON_INTERVAL_MS = 200;
const seconds = smoke ? 1 : 10;

/**
 * The settings compared, each on a fresh server. Every one raises LOGIN_RATE_LIMIT_MAX so that the
 * people measured (a few sign-ins a second each) are never refused by their own limits; the flood
 * needs no raised limit, since each of its attempts comes from a new address for a new name, as from a
 * botnet, and every limit is still counted in the database as usual.
 */
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
const ALL = smoke
  ? [{ label: 'flood, the defaults', flood: FLOOD_CONNECTIONS, env: {} }]
  : [
      { label: 'no flood, the defaults', flood: 0, env: {} },
      {
        label: 'no cap (`PASSWORD_CHECK_CONCURRENCY=0`)',
        flood: FLOOD_CONNECTIONS,
        env: { PASSWORD_CHECK_CONCURRENCY: '0' },
      },
      {
        label: 'cap 1, queue 256',
        flood: FLOOD_CONNECTIONS,
        env: { PASSWORD_CHECK_CONCURRENCY: '1', PASSWORD_CHECK_QUEUE: '256' },
      },
      {
        label: 'cap 2, queue 256 (the defaults)',
        flood: FLOOD_CONNECTIONS,
        env: { PASSWORD_CHECK_CONCURRENCY: '2', PASSWORD_CHECK_QUEUE: '256' },
      },
      {
        label: 'cap 4, queue 256',
        flood: FLOOD_CONNECTIONS,
        env: { PASSWORD_CHECK_CONCURRENCY: '4', PASSWORD_CHECK_QUEUE: '256' },
      },
      {
        label: 'cap 2, queue 32',
        flood: FLOOD_CONNECTIONS,
        env: { PASSWORD_CHECK_CONCURRENCY: '2', PASSWORD_CHECK_QUEUE: '32' },
      },
      {
        label: 'the defaults, a flood of 512 (beyond the queue)',
        flood: 512,
        env: { PASSWORD_CHECK_CONCURRENCY: '2', PASSWORD_CHECK_QUEUE: '256' },
      },
    ];

const SETTINGS = ONLY ? ALL.filter((s) => s.label.includes(ONLY)) : ALL;

/** The section of the report: one row per setting. */
export async function loginFlood() {
  const rows = [];
  for (const setting of SETTINGS) rows.push(await measure(setting));
  return [
    '## Sign-ins under a hash flood',
    '',
    `PGlite in memory, a fresh server per row. The flood: ${FLOOD_CONNECTIONS} connections, each sending a sign-in ` +
      'for a new name from a new address (`X-Forwarded-For`, TRUST_PROXY=127.0.0.1) as soon as its last one is ' +
      `answered, for ${seconds} s. Meanwhile two people sign in one after another, at most every ` +
      `${PERSON_INTERVAL_MS} ms: one from a trusted device of their account (the device cookie of an earlier ` +
      'sign-in), one from a new browser. Latency is from sending to the whole answer.',
    '',
    '| setting | flood connections | flood 401/s | flood 503/s | server CPU % | trusted device p50 / p95 / max ms | new browser p50 / p95 / max ms | new browser 503 |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

async function measure({ label, flood, env }) {
  const server = await startServer({ TRUST_PROXY: '127.0.0.1', LOGIN_RATE_LIMIT_MAX: '1000000', ...env });
  try {
    const device = await deviceCookie(server.url);
    const cpuBefore = await cpuMs(server.child.pid);
    const started = performance.now();
    const until = started + seconds * 1000;
    const [floodResult, trusted, fresh] = await Promise.all([
      flood ? floodFor(server.url, flood, seconds) : null,
      person(server.url, { username: 'ada', password: 'lovelace', cookie: device }, until),
      person(server.url, { username: 'alan', password: 'turing', address: '198.51.100.7' }, until),
    ]);
    const cpuPercent = (((await cpuMs(server.child.pid)) - cpuBefore) / (performance.now() - started)) * 100;
    const perSecond = (status) =>
      floodResult ? Math.round((floodResult.statusCodeStats?.[status]?.count ?? 0) / seconds) : '–';
    if (trusted.refused > 0 || trusted.failed > 0) throw new Error(`${label}: a trusted device's sign-in failed`);
    if (fresh.failed > 0) throw new Error(`${label}: a new browser's sign-in failed other than with 503`);
    return (
      `| ${label} | ${flood} | ${perSecond(401)} | ${perSecond(503)} | ${Math.round(cpuPercent)} | ${describe(trusted.ms)} | ` +
      `${describe(fresh.ms)} | ${fresh.refused} of ${fresh.ms.length + fresh.refused} |`
    );
  } finally {
    await server.stop();
  }
}

/** A device cookie of ada's: her first sign-in from this "browser". */
async function deviceCookie(url) {
  const response = await signIn(url, { username: 'ada', password: 'lovelace' });
  if (response.status !== 200) throw new Error(`the first sign-in failed: ${response.status}`);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('loginDevice='));
  if (!cookie) throw new Error('no device cookie came');
  return cookie.split(';')[0];
}

function signIn(url, { username, password, cookie, address }) {
  return fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(cookie ? { Cookie: cookie } : {}),
      ...(address ? { 'X-Forwarded-For': address } : {}),
    },
    body: JSON.stringify({ username, password }),
  });
}

/** One person signing in again and again until `until`: the latencies of the 200s, and the 503s and other answers counted. */
async function person(url, account, until) {
  const ms = [];
  let refused = 0;
  let failed = 0;
  // After the flood has started.
  await delay(500);
  while (performance.now() < until) {
    const sent = performance.now();
    const response = await signIn(url, account);
    await response.arrayBuffer();
    const took = performance.now() - sent;
    if (response.status === 200) ms.push(took);
    else if (response.status === 503) refused++;
    else failed++;
    await delay(Math.max(0, PERSON_INTERVAL_MS - took));
  }
  return { ms, refused, failed };
}

/** The flood, from its own process (flood-sign-ins.mjs): its answers' status counts. */
async function floodFor(url, connections, duration) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('flood-sign-ins.mjs', import.meta.url)), url, String(connections), String(duration)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the flood exited with ${code}`);
  return JSON.parse(output);
}

function describe(values) {
  if (values.length === 0) return '–';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `${Math.round(at(0.5))} / ${Math.round(at(0.95))} / ${Math.round(sorted.at(-1))}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeMachine());
  console.log(await loginFlood());
}
