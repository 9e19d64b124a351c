/* global fetch */
import { freePort } from '../server/process-stats.mjs';
import { CLIENT_SECRET, dist } from './settings.mjs';
import { startProcess } from './start-process.mjs';

/**
 * Starts one instance of the BFF (bff-instance.mjs, through tsx) for the app at `baseUrl`, calling the
 * provider and API of `upstream`, its sessions in PostgreSQL when `databaseUrl` is given. It listens on
 * `port` (default: a free one), as one of several servers behind the app's origin would. Answers
 * `{ url, pid, warnings(), stop() }`.
 */
export async function startBffInstance({ upstream, baseUrl, databaseUrl = null, port, name = 'bff' }) {
  const listenOn = port ?? (await freePort());
  const { child, info, stop } = await startProcess(
    'bench/bff/bff-instance.mjs',
    {
      issuer: upstream.issuer,
      secret: CLIENT_SECRET,
      apiUrl: upstream.apiUrl,
      baseUrl,
      port: listenOn,
      databaseUrl,
      dist,
    },
    { nodeArgs: dist ? [] : ['--import', 'tsx'], name },
  );
  return {
    url: info.url,
    pid: child.pid,
    warnings: async () => (await fetch(`${info.url}/__instance/warnings`)).json(),
    stop,
  };
}
