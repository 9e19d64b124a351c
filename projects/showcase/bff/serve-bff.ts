// The showcase's server in its `bff` mode: the built app and the backend-for-frontend of
// ngx-token-refresh/bff on one origin, the sessions in memory or, with DATABASE_URL, in PostgreSQL
// (then several instances can serve one app behind a load balancer). Settings from the environment:
// bff-server-settings.ts. `npm run start:bff` starts it with a provider (start-bff.mjs); the browser
// tests start two instances (e2e/playwright.bff.config.ts).
//
//   OIDC_ISSUER=http://localhost:4444 OIDC_CLIENT_SECRET=... node --import tsx projects/showcase/bff/serve-bff.ts
//
// Prints one line on stdout once it listens, `bff ready <origin>`. SIGTERM or SIGINT: it stops taking
// connections, lets the refreshes under way finish and save their tokens (Bff.close), then exits.
import { createBff, createBffMemoryStore, createBffPostgresStore } from 'ngx-token-refresh/bff';
import pg from 'pg';

import { readBffServerSettings } from './bff-server-settings';
import { createBffServer } from './create-bff-server';

const settings = readBffServerSettings(process.env);
const pool = settings.databaseUrl === null ? null : new pg.Pool({ connectionString: settings.databaseUrl });
// An idle connection that loses its server (a database restart) must not bring the process down.
pool?.on('error', (error) => console.warn(`${settings.name}: PostgreSQL: ${error.message}`));

const bff = createBff({
  issuer: settings.issuer,
  clientId: settings.clientId,
  clientSecret: settings.clientSecret,
  baseUrl: settings.origin,
  // The provider's userinfo endpoint is the API the page calls: GET /api/me answers who the token is for.
  apis: { '/api/me': `${settings.issuer}/me` },
  // oidc-provider (as others) keeps offline_access, so issues a refresh token, only with a consent prompt.
  authorizationParams: { prompt: 'consent' },
  store: pool === null ? createBffMemoryStore() : createBffPostgresStore({ pool }),
  onWarning: (message) => console.warn(`${settings.name}: ${message}`),
});

const server = createBffServer({
  bff,
  browserDir: settings.browserDir,
  origin: settings.origin,
  onError: (error) => console.error(`${settings.name}:`, error),
});

server.listen(settings.port, settings.host, () => {
  console.log(`bff ready ${settings.origin}`);
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeIdleConnections();
  await bff.close();
  await pool?.end();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
