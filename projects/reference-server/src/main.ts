import { DEMO_ACCOUNTS } from '#contract/demo';

import { buildServer } from './build-server.js';
import { openDatabase } from './open-database.js';
import { readConfig } from './read-config.js';
import { seedDemoData } from './seed-demo-data.js';
import { createSqlRepository } from './sql-repository.js';

// `npm run server`: reads the environment (see the README's configuration table), opens and migrates
// the database, seeds the demo data on a first start, and serves until SIGINT or SIGTERM.

async function main(): Promise<void> {
  const config = readConfig(process.env);
  const engine = await openDatabase({
    ...config,
    timeouts: {
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    },
  });
  const repository = createSqlRepository(engine);
  const app = await buildServer({ config, repository });
  if (config.seedDemoData && (await seedDemoData(repository))) {
    const accounts = DEMO_ACCOUNTS.map(({ username, password, role }) => `${username}/${password} (${role})`);
    app.log.info(`first start: created the demo accounts ${accounts.join(', ')} and 42 demo users`);
  }
  if (config.jwtSecretGenerated) {
    app.log.warn(
      'JWT_SECRET is not set: signing access tokens with a random key made at start-up. Tokens stop working ' +
        'when the server restarts, and several instances would not accept each other’s. Set JWT_SECRET ' +
        '(32 bytes or more) for anything but local development.',
    );
  }
  // readConfig refuses COOKIE_SECURE=false when NODE_ENV=production, so this is development.
  if (!config.cookieSecure) {
    app.log.warn('COOKIE_SECURE=false: the refresh cookie may travel over plain HTTP. For local development only.');
  }
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info(`reference server on ${address} with ${engine.description}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal}: closing`);
    await app.close();
    await repository.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  // A configuration mistake deserves its message, not a stack trace.
  const message = error instanceof Error && error.message.startsWith('reference-server:') ? error.message : error;
  console.error(message);
  process.exit(1);
});
