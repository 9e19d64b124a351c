/* global fetch */
import autocannon from 'autocannon';

import { cpuMs } from '../server/process-stats.mjs';
import { API_PATH, OVERHEAD } from './settings.mjs';
import { bffCallHeaders, signInThroughBff } from './sign-in-through-bff.mjs';
import { startBffInstance } from './start-bff-instance.mjs';
import { startProcess } from './start-process.mjs';

/** The paths of one call to the API, in the order of the report. */
export const OVERHEAD_PATHS = [
  { name: 'direct', label: 'direct' },
  { name: 'bare', label: 'through a bare fetch proxy' },
  { name: 'bff', label: 'through the BFF' },
];

/**
 * The proxy's cost, on one store: one BFF instance at `baseUrl` (listening on `port`) with a signed-in
 * session, and the same API call made three ways at the same connections: directly with a bearer token
 * (of the same user and client, from the harness's own sign-in); through a bare proxy (bare-proxy.mjs:
 * `node:http` in, `fetch` out, the same token, nothing else), the floor of any proxy built on `fetch`;
 * and through the BFF with the session cookie and `x-csrf`. For each connection count, the paths take
 * turns for {@link OVERHEAD}.rounds rounds in the orders ABC, BCA, CAB..., so that all meet the same
 * moments of a shared machine and none always runs first; each round gives one paired ratio of each
 * proxy's throughput to the direct calls'.
 *
 * Answers, per connection count, each path's `{ requests, seconds, latencies (sorted, ms), apiCpuUs,
 * proxyCpuUs }` by name, and the rounds' `ratios` (req/s over the direct req/s) of `bare` and `bff`.
 */
export async function proxyOverhead({ upstream, baseUrl, port, databaseUrl = null }) {
  const bff = await startBffInstance({ upstream, baseUrl, port, databaseUrl });
  const bare = await startProcess('bench/bff/bare-proxy.mjs', { apiUrl: upstream.apiUrl }, { name: 'bare proxy' });
  try {
    const session = await signInThroughBff(baseUrl, 'ada');
    const { access_token: accessToken } = await upstream.signIn('ada');
    const bearer = { authorization: `Bearer ${accessToken}` };
    const paths = {
      direct: { url: upstream.apiUrl + API_PATH, headers: bearer, pid: null },
      bare: { url: bare.info.url + API_PATH, headers: bearer, pid: bare.child.pid },
      bff: { url: bff.url + API_PATH, headers: bffCallHeaders(session), pid: bff.pid },
    };
    // Every path must answer the same thing, or the comparison says nothing.
    const answers = await Promise.all(
      Object.values(paths).map(async ({ url, headers }) => {
        const response = await fetch(url, { headers });
        return `${response.status} ${await response.text()}`;
      }),
    );
    if (new Set(answers).size !== 1) throw new Error(`the paths answer differently: ${answers.join(' | ')}`);

    const names = OVERHEAD_PATHS.map(({ name }) => name);
    const byConnections = [];
    for (const connections of OVERHEAD.connections) {
      if (OVERHEAD.warmUpSeconds > 0) {
        for (const name of names) await load(paths[name], connections, OVERHEAD.warmUpSeconds);
      }
      const totals = Object.fromEntries(
        names.map((name) => [name, { requests: 0, seconds: 0, latencies: [], apiCpuMs: 0, proxyCpuMs: 0 }]),
      );
      const ratios = { bare: [], bff: [] };
      for (let round = 0; round < OVERHEAD.rounds; round++) {
        const perSecond = {};
        const shift = round % names.length;
        for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
          const path = paths[name];
          const cpu = () => Promise.all([cpuMs(upstream.pid), path.pid === null ? 0 : cpuMs(path.pid)]);
          const [apiBefore, proxyBefore] = await cpu();
          const result = await load(path, connections, OVERHEAD.roundSeconds);
          const [apiAfter, proxyAfter] = await cpu();
          const total = totals[name];
          total.requests += result.requests;
          total.seconds += result.seconds;
          total.latencies.push(...result.latencies);
          total.apiCpuMs += apiAfter - apiBefore;
          total.proxyCpuMs += proxyAfter - proxyBefore;
          perSecond[name] = result.requests / result.seconds;
        }
        for (const name of ['bare', 'bff']) ratios[name].push(perSecond[name] / perSecond.direct);
      }
      const summary = (total) => ({
        requests: total.requests,
        seconds: total.seconds,
        latencies: total.latencies.sort((a, b) => a - b),
        apiCpuUs: (total.apiCpuMs * 1000) / total.requests,
        proxyCpuUs: (total.proxyCpuMs * 1000) / total.requests,
      });
      byConnections.push({
        connections,
        paths: Object.fromEntries(names.map((name) => [name, summary(totals[name])])),
        ratios,
      });
    }
    const warnings = await bff.warnings();
    if (warnings.length > 0) throw new Error(`the BFF warned: ${warnings.join('; ')}`);
    return byConnections;
  } finally {
    await Promise.all([bff.stop(), bare.stop()]);
  }
}

/**
 * `seconds` of autocannon on one path; every answer must be a 200. The latencies come from autocannon's
 * own timing of each answer (its histogram keeps whole milliseconds, too coarse for calls of a fraction
 * of one).
 */
async function load({ url, headers }, connections, seconds) {
  const latencies = [];
  const instance = autocannon({ url, connections, duration: seconds, headers });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  const ok = result.statusCodeStats?.[200]?.count ?? 0;
  if (ok !== result.requests.total || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`);
  }
  return { requests: result.requests.total, seconds: result.duration, latencies };
}
