import { countExpiries } from './count-expiries.mjs';
import { percentile } from './percentile.mjs';
import { openLoopLoad } from './open-loop-load.mjs';
import { API_PATH, GRANTS } from './settings.mjs';
import { bffCallHeaders, signInThroughBff } from './sign-in-through-bff.mjs';
import { startBffInstance } from './start-bff-instance.mjs';

/** Sign-ins under way at once before the load. */
const SIGN_INS_AT_ONCE = 5;

/**
 * One row of the grants under load: `instances` BFF processes behind the app's origin `baseUrl` (the
 * first listens on `port`), on one store (`databaseUrl`: PostgreSQL, each instance with its own pool;
 * else memory, for one instance only), `sessions` users signed in, then the open-loop load of
 * {@link GRANTS} with calls alternating between the instances. The provider's counts and the API's
 * sightings are taken from the start of the load to the last answer.
 */
export async function grantsPerExpiry({ upstream, baseUrl, port, databaseUrl = null, instances, sessions }) {
  const started = [];
  try {
    for (let index = 0; index < instances; index++) {
      started.push(
        await startBffInstance({
          upstream,
          baseUrl,
          databaseUrl,
          port: index === 0 ? port : undefined,
          name: `bff ${index + 1}`,
        }),
      );
    }
    const logins = Array.from({ length: sessions }, (_, index) => `user-${index + 1}`);
    const cookies = [];
    for (let index = 0; index < logins.length; index += SIGN_INS_AT_ONCE) {
      const batch = logins.slice(index, index + SIGN_INS_AT_ONCE);
      cookies.push(...(await Promise.all(batch.map((login) => signInThroughBff(baseUrl, login)))));
    }
    await Promise.all([upstream.resetStats(), upstream.resetStub()]);
    const { answers, lateMs } = await openLoopLoad({
      targets: started.map(({ url }) => url),
      sessions: cookies.map(bffCallHeaders),
      path: API_PATH,
      callsPerSecond: GRANTS.callsPerSecond,
      burst: GRANTS.burst,
      seconds: GRANTS.seconds,
    });
    const [stats, stub, warnings] = await Promise.all([
      upstream.stats(),
      upstream.stub(),
      Promise.all(started.map((instance) => instance.warnings())),
    ]);
    const failed = answers.filter(({ status }) => status !== 200);
    const failures = {};
    for (const { status, code } of failed) failures[`${status} ${code}`] = (failures[`${status} ${code}`] ?? 0) + 1;
    const latencies = answers.map(({ ms }) => ms).sort((a, b) => a - b);
    return {
      store: databaseUrl ? 'PostgreSQL' : 'memory',
      instances,
      sessions,
      calls: answers.length,
      failed: failed.length,
      failures,
      ...countExpiries(stub.sightings),
      grants: stats.refreshGrants,
      reuse: stats.reuseDetected,
      refreshFailures: Object.values(stats.refreshFailures).reduce((sum, count) => sum + count, 0),
      revoked: stats.revoked,
      api401: stub.answers[401] ?? 0,
      warnings: warnings.flat(),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      lateMs,
    };
  } finally {
    await Promise.all(started.map((instance) => instance.stop()));
  }
}
