/* global TextEncoder, crypto */
import { performance } from 'node:perf_hooks';

import { jwtSecret, smoke } from './settings.mjs';

/** The built server's access tokens (`dist/access-tokens.js`) with the benchmark server's secret. */
async function benchTokens() {
  const { createAccessTokens } = await import(
    new URL('../../projects/reference-server/dist/access-tokens.js', import.meta.url).href
  );
  return createAccessTokens({
    secret: new TextEncoder().encode(jwtSecret),
    ttlSeconds: 900,
    now: Date.now,
    expiredGraceSeconds: 0,
  });
}

/** `count` access tokens for the demo admin, each with its own session id, signed as the server signs them. */
export async function signTokens(count) {
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
export async function tokenCheckCost() {
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
