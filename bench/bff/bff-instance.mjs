// One instance of the backend-for-frontend, in a process of its own (started by `startBffInstance`,
// with `node --import tsx`: the BFF comes from the library's source, as its specs run it; with `dist`,
// from the built package's bundle, after `npm run build:lib`).
// BENCH_CONFIG: `{ issuer, secret, apiUrl, baseUrl, port, databaseUrl, dist }`; with `databaseUrl` its
// sessions live in PostgreSQL (a pool of its own), else in this process's memory. Prints `ready { url }` once it
// listens; `GET /__instance/warnings` answers what the BFF said through `onWarning`. SIGTERM closes it
// as an app's server would (`bff.close()` lets refreshes under way finish).
import pg from 'pg';

import { createBffServer } from './create-bff-server.mjs';

const { issuer, secret, apiUrl, baseUrl, port, databaseUrl, dist } = JSON.parse(process.env.BENCH_CONFIG);
const { createBff, createBffMemoryStore, createBffPostgresStore } = await import(
  dist
    ? '../../dist/ngx-token-refresh/fesm2022/ngx-token-refresh-bff.mjs'
    : '../../projects/ngx-token-refresh/bff/src/public-api.ts'
);
const pool = databaseUrl ? new pg.Pool({ connectionString: databaseUrl }) : null;
const warnings = [];
const bff = createBff({
  issuer,
  clientId: 'bff',
  clientSecret: secret,
  baseUrl,
  apis: { '/api': `${apiUrl}/api` },
  store: pool ? createBffPostgresStore({ pool }) : createBffMemoryStore(),
  // The harness issues refresh tokens only with a consent prompt.
  authorizationParams: { prompt: 'consent' },
  // Bearer tokens, as the direct calls carry: the provider advertises DPoP, which the BFF would use.
  dpop: false,
  onWarning: (message) => warnings.push(message),
});
const server = createBffServer(bff, baseUrl, (req, res) => {
  if (req.url === '/__instance/warnings') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(warnings));
  } else {
    res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 60_000;
process.once('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void bff
    .close()
    .then(() => pool?.end())
    .then(() => process.exit(0));
});
server.listen(port, '127.0.0.1', () => console.log(`ready ${JSON.stringify({ url: `http://127.0.0.1:${port}` })}`));
