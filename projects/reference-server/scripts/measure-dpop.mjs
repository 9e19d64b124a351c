/* global Buffer, fetch, TextEncoder */
// Measures what DPoP costs the server per API call, for the README's DPoP section:
//
//   npm run build:server && node projects/reference-server/scripts/measure-dpop.mjs [--rounds=20] [--read]
//
// Two servers built as `npm run server` runs them (dist/main.js, LOG_LEVEL=warn, PGlite in memory, or
// PostgreSQL when DATABASE_URL is set: give it a scratch database, which both migrate and seed), one
// with DPOP=off and one with DPOP=allowed, each in its own process, on loopback. Three calls of the
// route the load benchmark uses for the token check (GET /api/v1/users/0: the credentials are checked,
// then the id is refused with 400, without a database read) take turns for `rounds` rounds of 1 s
// (ABC, BCA, CAB, ...) under autocannon with 10 connections (with --read: GET /api/v1/users/1, which
// also reads the database, 200):
//
//   A  DPOP=off, Bearer token: today's path
//   B  DPOP=allowed, Bearer token bound to no key: the asynchronous hook alone
//   C  DPOP=allowed, DPoP token and a new proof on every call: the proof's checks and its replay record
//
// Proofs are made beforehand (node:crypto, ES256) so that the load generator, on the same cores, does
// the same work for each call. Printed: the medians of req/s and server CPU per answer, and the paired
// ratios to A. It also times the proof check alone (createDpopProofs().check, in this process).
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import autocannon from 'autocannon';

import { cpuMs, describeMachine, freePort } from '../../../bench/server/process-stats.mjs';
import { createDpopProofs } from '../dist/dpop-proofs.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice(9) ?? 20);
const JWT_SECRET = 'measurement-secret-of-the-reference-server-0123456789';
const read = process.argv.includes('--read');
const PATH = read ? '/api/v1/users/1' : '/api/v1/users/0';
const STATUS = read ? '200' : '400';
/** Proofs made per 1-s round of C: far more than a round sends. */
const PROOFS_PER_ROUND = 12_000;

const b64u = (data) => Buffer.from(data).toString('base64url');
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const { crv, kty, x, y } = publicKey.export({ format: 'jwk' });
const header = b64u(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: { crv, kty, x, y } }));

/** A proof for `htm` `htu`, signed as WebCrypto signs (R || S). */
function proof(htm, htu, nonce, accessToken) {
  const claims = { jti: randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000), nonce };
  if (accessToken) claims.ath = createHash('sha256').update(accessToken).digest('base64url');
  const input = `${header}.${b64u(JSON.stringify(claims))}`;
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`;
}

async function startServer(dpop) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['projects/reference-server/dist/main.js'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      JWT_SECRET,
      COOKIE_SECURE: 'false',
      DPOP: dpop,
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    },
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/openapi.json`);
      return { url, child };
    } catch {
      if (Date.now() > deadline) throw new Error('the server did not start');
      await delay(50);
    }
  }
}

async function signIn(url, withProof) {
  const login = (headers) =>
    fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
    });
  let response = await login(withProof ? { DPoP: proof('POST', `${url}/auth/login`) } : {});
  const nonce = response.headers.get('dpop-nonce');
  if (response.status === 400 && nonce) response = await login({ DPoP: proof('POST', `${url}/auth/login`, nonce) });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`);
  return { accessToken: (await response.json()).accessToken, nonce };
}

function load(url, headersOf) {
  return autocannon({
    url: url + PATH,
    connections: 10,
    duration: 1,
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...headersOf() } }) }],
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const off = await startServer('off');
const allowed = await startServer('allowed');
try {
  const bearerOff = await signIn(off.url, false);
  const bearerAllowed = await signIn(allowed.url, false);
  const bound = await signIn(allowed.url, true);
  let nonce = bound.nonce;
  const calls = [
    {
      name: 'A',
      label: 'DPOP=off, Bearer',
      url: off.url,
      headers: () => ({ Authorization: `Bearer ${bearerOff.accessToken}` }),
    },
    {
      name: 'B',
      label: 'DPOP=allowed, Bearer',
      url: allowed.url,
      headers: () => ({ Authorization: `Bearer ${bearerAllowed.accessToken}` }),
    },
    { name: 'C', label: 'DPOP=allowed, DPoP + proof', url: allowed.url, headers: null },
  ];
  const measured = Object.fromEntries(calls.map(({ name }) => [name, { perSecond: [], cpu: [] }]));
  const ratios = { B: { perSecond: [], cpu: [] }, C: { perSecond: [], cpu: [] } };
  for (let round = 0; round < rounds; round++) {
    // Fresh proofs with the current nonce for this round's C (a nonce lives 2 to 3 minutes).
    const probe = await fetch(allowed.url + PATH, {
      headers: {
        Authorization: `DPoP ${bound.accessToken}`,
        DPoP: proof('GET', allowed.url + PATH, nonce, bound.accessToken),
      },
    });
    nonce = probe.headers.get('dpop-nonce') ?? nonce;
    const proofs = Array.from({ length: PROOFS_PER_ROUND }, () =>
      proof('GET', allowed.url + PATH, nonce, bound.accessToken),
    );
    let next = 0;
    calls[2].headers = () => ({ Authorization: `DPoP ${bound.accessToken}`, DPoP: proofs[next++] });
    const thisRound = {};
    const shift = round % calls.length;
    for (const call of [...calls.slice(shift), ...calls.slice(0, shift)]) {
      const pid = call.url === off.url ? off.child.pid : allowed.child.pid;
      const cpuBefore = await cpuMs(pid);
      const result = await load(call.url, call.headers);
      const ok = result.statusCodeStats?.[STATUS]?.count ?? 0;
      if (ok !== result.requests.total || result.errors > 0 || next > PROOFS_PER_ROUND) {
        throw new Error(`${call.label}: ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`);
      }
      thisRound[call.name] = {
        perSecond: result.requests.total,
        cpu: (((await cpuMs(pid)) - cpuBefore) * 1000) / result.requests.total,
      };
    }
    for (const { name } of calls) {
      measured[name].perSecond.push(thisRound[name].perSecond);
      measured[name].cpu.push(thisRound[name].cpu);
    }
    for (const name of ['B', 'C']) {
      ratios[name].perSecond.push(thisRound[name].perSecond / thisRound.A.perSecond);
      ratios[name].cpu.push(thisRound[name].cpu / thisRound.A.cpu);
    }
  }

  // The proof check alone, in this process: a new proof every time, the key known (as for a client's
  // later calls).
  const proofs = createDpopProofs({ jwtSecret: new TextEncoder().encode(JWT_SECRET), now: Date.now, repository: {} });
  const checkNonce = proofs.nonce();
  const samples = Array.from({ length: 3000 }, () => proof('GET', `http://api.example${PATH}`, checkNonce, 'token'));
  const request = (dpop) => ({ headers: { dpop }, method: 'GET', url: PATH, protocol: 'http', host: 'api.example' });
  for (const sample of samples.slice(0, 500)) proofs.check(request(sample), 'token');
  const started = performance.now();
  for (const sample of samples) {
    if (!proofs.check(request(sample), 'token').ok) throw new Error('a proof was refused');
  }
  const checkMicroseconds = ((performance.now() - started) * 1000) / samples.length;

  console.log(
    `${describeMachine()}; ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite in memory'}; GET ${PATH}; ${rounds} rounds of 1 s.`,
  );
  console.log('| call | req/s (median) | server CPU µs/answer (median) | req/s vs A | CPU vs A |');
  console.log('|---|---:|---:|---:|---:|');
  for (const { name, label } of calls) {
    const vsA =
      name === 'A'
        ? ['1.00', '1.00']
        : [median(ratios[name].perSecond).toFixed(2), median(ratios[name].cpu).toFixed(2)];
    console.log(
      `| ${name}: ${label} | ${Math.round(median(measured[name].perSecond))} | ${Math.round(median(measured[name].cpu))} | ${vsA[0]}x | ${vsA[1]}x |`,
    );
  }
  console.log(`proofs.check alone (signature, claims, nonce, ath): ${checkMicroseconds.toFixed(1)} µs per proof`);
} finally {
  for (const { child } of [off, allowed]) child.kill('SIGTERM');
}
