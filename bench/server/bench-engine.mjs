/* global Buffer, fetch */
import autocannon from 'autocannon';

import { cpuMs, memory } from './process-stats.mjs';
import {
  connections,
  duration,
  NEW_TOKEN_POOL,
  REFRESH_SESSIONS,
  rounds,
  roundSeconds,
  ROUTES,
  smoke,
} from './settings.mjs';
import { startServer } from './start-server.mjs';
import { signTokens } from './token-check-cost.mjs';

/**
 * One engine: starts the built server on it as `npm run server` would, measures start-up and memory,
 * loads every route, settles the token-check ratios, and returns the engine's section of the report.
 */
export async function benchEngine(engine) {
  const { url, child, startupMs, stop } = await startServer({
    // The auth routes' limits and the sign-in delays are counted in the database as always, only never
    // reached by the load (10 sign-ins of one device at once would run into the delays); and every
    // refresh rotates (no overlap window), the costliest kind.
    LOGIN_RATE_LIMIT_MAX: '1000000',
    LOGIN_ACCOUNT_FREE_ATTEMPTS: '1000000',
    REFRESH_RATE_LIMIT_MAX: '1000000',
    REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0',
    ...engine.env,
  });
  try {
    const rssAtStart = await memory(child.pid, 'VmRSS');
    const login = await signIn(url);
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
    const { accessToken } = await login.json();
    const device = cookieOf(login, DEVICE_COOKIE);
    const newTokens = await signTokens(NEW_TOKEN_POOL);
    const rows = [];
    const results = {};
    for (const route of ROUTES) {
      if (!smoke) await load(url, route, accessToken, newTokens, 1, device);
      const cpuBefore = await cpuMs(child.pid);
      const result = await load(url, route, accessToken, newTokens, duration, device);
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
    await stop();
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
 * for each route and the req/s ratios compare the server alone. A refresh route starts its own
 * {@link REFRESH_SESSIONS} sessions first: a run ends with answers on the wire that it never reads,
 * whose sessions' latest tokens it then does not know.
 */
async function load(url, route, accessToken, newTokens, seconds, device) {
  let next = 0;
  const authorization = () =>
    route.token === 'new'
      ? { Authorization: `Bearer ${newTokens[next++ % newTokens.length]}` }
      : route.token
        ? { Authorization: `Bearer ${accessToken}` }
        : {};
  const sessions = route.flow === 'refresh' ? await startSessions(url, REFRESH_SESSIONS) : new Map();
  const families = [...sessions.keys()];
  // Sessions with a refresh on the wire: never two at once of one session (a slow answer would
  // otherwise meet the next turn of its session, and the second would spend a rotated token).
  const busy = new Set();
  const flows = {
    login: () => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: device },
      body: JSON.stringify(DEMO_LOGIN),
    }),
    // Sessions in turn, each with its latest token.
    refresh: (context) => {
      let family = families[next++ % families.length];
      while (busy.has(family)) family = families[next++ % families.length];
      busy.add(family);
      context.family = family;
      return { method: 'POST', headers: { Cookie: `${REFRESH_COOKIE}=${sessions.get(family)}` } };
    },
  };
  return autocannon({
    url: url + route.path,
    connections: route.connections ?? connections,
    duration: seconds,
    requests: [
      {
        // `context` is the connection's, from this request's setup to its answer.
        setupRequest: (request, context) => {
          const flow = route.flow ? flows[route.flow](context) : { headers: {} };
          return {
            ...request,
            ...flow,
            headers: { ...request.headers, ...route.headers, ...authorization(), ...flow.headers },
          };
        },
        onResponse: (status, body, context, headers) => {
          if (route.flow !== 'refresh') return;
          busy.delete(context.family);
          // Each refresh rotates the session's token: its next turn sends the new one.
          if (status === 200) remember(sessions, cookieValue(headers['set-cookie']));
        },
      },
    ],
  });
}

const DEMO_LOGIN = { username: 'ada', password: 'lovelace' };
/** The cookies' names with COOKIE_SECURE=false. */
const REFRESH_COOKIE = 'refreshToken';
const DEVICE_COOKIE = 'loginDevice';

function signIn(url, cookie) {
  return fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(cookie ? { Cookie: cookie } : {}) },
    body: JSON.stringify(DEMO_LOGIN),
  });
}

/** `count` sessions of the demo admin, a few sign-ins at a time: their refresh tokens by session. */
async function startSessions(url, count) {
  const sessions = new Map();
  for (let started = 0; started < count; started += 8) {
    const batch = Array.from({ length: Math.min(8, count - started) }, () => signIn(url));
    for (const response of await Promise.all(batch)) {
      if (response.status !== 200) throw new Error(`login failed: ${response.status}`);
      remember(sessions, cookieOf(response, REFRESH_COOKIE).split('=')[1]);
    }
  }
  return sessions;
}

/** Keeps `token` as its session's latest; a refresh token begins with its session's 16-byte id. */
function remember(sessions, token) {
  if (token) sessions.set(Buffer.from(token, 'base64url').subarray(0, 16).toString('hex'), token);
}

/** `name=value` of the response's cookie `name`. */
function cookieOf(response, name) {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name} cookie came`);
  return line.split(';')[0];
}

/** The refresh token of a `Set-Cookie` header (one line or several). */
function cookieValue(header) {
  const lines = Array.isArray(header) ? header : [header ?? ''];
  return lines
    .find((line) => line.startsWith(`${REFRESH_COOKIE}=`))
    ?.split(';')[0]
    .slice(REFRESH_COOKIE.length + 1);
}
