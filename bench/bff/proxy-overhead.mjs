/* global fetch */
import autocannon from 'autocannon';

import { cpuMs } from '../server/process-stats.mjs';
import { API_PATH, OVERHEAD } from './settings.mjs';
import { bffCallHeaders, signInThroughBff } from './sign-in-through-bff.mjs';
import { startBffInstance } from './start-bff-instance.mjs';

/**
 * The proxy's cost, on one store: one BFF instance at `baseUrl` (listening on `port`) with a signed-in
 * session, and the same API call made two ways at the same connections: directly with a bearer token
 * (of the same user and client, from the harness's own sign-in), and through the BFF with the session
 * cookie and `x-csrf`. For each connection count, the two paths take turns for {@link OVERHEAD}.rounds
 * rounds (direct first in even rounds, the BFF first in odd ones), so that both meet the same moments
 * of a shared machine; each round gives one paired ratio of throughput.
 *
 * Answers, per connection count, each path's `{ requests, seconds, latencies (sorted, ms), apiCpuUs,
 * bffCpuUs }` and the rounds' `ratios` (BFF req/s / direct req/s).
 */
export async function proxyOverhead({ upstream, baseUrl, port, databaseUrl = null }) {
  const bff = await startBffInstance({ upstream, baseUrl, port, databaseUrl });
  try {
    const session = await signInThroughBff(baseUrl, 'ada');
    const { access_token: accessToken } = await upstream.signIn('ada');
    const paths = {
      direct: { url: upstream.apiUrl + API_PATH, headers: { authorization: `Bearer ${accessToken}` } },
      bff: { url: bff.url + API_PATH, headers: bffCallHeaders(session) },
    };
    // Both paths must answer the same thing, or the comparison says nothing.
    const [direct, proxied] = await Promise.all(
      Object.values(paths).map(async ({ url, headers }) => {
        const response = await fetch(url, { headers });
        return `${response.status} ${await response.text()}`;
      }),
    );
    if (direct !== proxied) throw new Error(`the paths answer differently: direct ${direct}, BFF ${proxied}`);

    const byConnections = [];
    for (const connections of OVERHEAD.connections) {
      if (OVERHEAD.warmUpSeconds > 0) {
        for (const path of Object.values(paths)) await load(path, connections, OVERHEAD.warmUpSeconds);
      }
      const totals = { direct: newTotal(), bff: newTotal() };
      const ratios = [];
      for (let round = 0; round < OVERHEAD.rounds; round++) {
        const perSecond = {};
        for (const name of round % 2 ? ['bff', 'direct'] : ['direct', 'bff']) {
          const [apiBefore, bffBefore] = await Promise.all([cpuMs(upstream.pid), cpuMs(bff.pid)]);
          const result = await load(paths[name], connections, OVERHEAD.roundSeconds);
          const [apiAfter, bffAfter] = await Promise.all([cpuMs(upstream.pid), cpuMs(bff.pid)]);
          const total = totals[name];
          total.requests += result.requests;
          total.seconds += result.seconds;
          total.latencies.push(...result.latencies);
          total.apiCpuMs += apiAfter - apiBefore;
          total.bffCpuMs += bffAfter - bffBefore;
          perSecond[name] = result.requests / result.seconds;
        }
        ratios.push(perSecond.bff / perSecond.direct);
      }
      const summary = (total) => ({
        requests: total.requests,
        seconds: total.seconds,
        latencies: total.latencies.sort((a, b) => a - b),
        apiCpuUs: (total.apiCpuMs * 1000) / total.requests,
        bffCpuUs: (total.bffCpuMs * 1000) / total.requests,
      });
      byConnections.push({ connections, direct: summary(totals.direct), bff: summary(totals.bff), ratios });
    }
    const warnings = await bff.warnings();
    if (warnings.length > 0) throw new Error(`the BFF warned: ${warnings.join('; ')}`);
    return byConnections;
  } finally {
    await bff.stop();
  }
}

function newTotal() {
  return { requests: 0, seconds: 0, latencies: [], apiCpuMs: 0, bffCpuMs: 0 };
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
