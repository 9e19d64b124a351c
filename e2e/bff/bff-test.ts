import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { type BrowserContext, test as base } from '@playwright/test';
import pg from 'pg';

import {
  APP_ORIGIN,
  BALANCER_PORT,
  BFF_CLIENT_SECRET,
  INSTANCE_PORTS,
  PROVIDER_ISSUER,
} from '../playwright.bff.config';
import { type ProviderHooks, providerHooks } from './provider-hooks';
import { type RoundRobinBalancer, startRoundRobinBalancer } from './round-robin-balancer';
import { type BffInstance, startBffInstance } from './start-bff-instance';

/** The built app the instances serve. */
const BROWSER_DIR = 'dist/showcase-bff/browser';

/** The BFF behind its balancer, as the tests of one worker share it. */
export interface BffStack {
  /** The provider's test hooks. */
  readonly provider: ProviderHooks;
  readonly balancer: RoundRobinBalancer;
  /** The names of the instances (`bff-1`, `bff-2`). */
  readonly instances: readonly string[];
  /** Kills an instance at once (SIGKILL); the balancer skips it from then on. */
  kill(name: string): Promise<void>;
  /** Starts a killed instance again. */
  restart(name: string): Promise<void>;
  /** A statement on the instances' database, in their schema (`bff_sessions`). */
  query(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
}

/**
 * The tests of the BFF mode, with `newContext()` (a browser for one user, closed after the test) and
 * `stack`: per worker, a schema of its own in DATABASE_URL's database, the two instances on it
 * (`serve-bff.ts`, each its own process) and the balancer in front; the provider is the config's web
 * server.
 */
export const test = base.extend<{ newContext: () => Promise<BrowserContext> }, { stack: BffStack }>({
  // A browser of its own for each user (its cookies, storage and tabs), closed after the test.
  newContext: async ({ browser }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async () => {
      const context = await browser.newContext();
      contexts.push(context);
      return context;
    });
    await Promise.all(contexts.map((context) => context.close()));
  },
  stack: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      if (!existsSync(join(BROWSER_DIR, 'index.html'))) {
        throw new Error(`${BROWSER_DIR} is missing: build it first (ng build showcase -c production,bff)`);
      }
      const databaseUrl = process.env['DATABASE_URL']!;
      const schema = `bff_e2e_${randomBytes(6).toString('hex')}`;
      // Every connection, the instances' and the tests' own, works in that schema.
      const instanceUrl = new URL(databaseUrl);
      instanceUrl.searchParams.set('options', `-c search_path=${schema}`);
      const admin = new pg.Pool({ connectionString: instanceUrl.href, max: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      const env = {
        PUBLIC_URL: APP_ORIGIN,
        OIDC_ISSUER: PROVIDER_ISSUER,
        OIDC_CLIENT_SECRET: BFF_CLIENT_SECRET,
        DATABASE_URL: instanceUrl.href,
        BROWSER_DIR,
      };
      const running = new Map<string, BffInstance>();
      const start = async (name: string) => {
        running.set(name, await startBffInstance(name, INSTANCE_PORTS[name]!, env));
      };
      const names = Object.keys(INSTANCE_PORTS);
      await Promise.all(names.map(start));
      const balancer = await startRoundRobinBalancer(
        BALANCER_PORT,
        names.map((name) => ({ name, port: INSTANCE_PORTS[name]! })),
      );
      try {
        await use({
          provider: providerHooks(PROVIDER_ISSUER),
          balancer,
          instances: names,
          kill: async (name) => {
            await running.get(name)?.kill();
            running.delete(name);
          },
          restart: start,
          query: async (text, values) => (await admin.query(text, values)).rows,
        });
      } finally {
        await balancer.close();
        await Promise.all([...running.values()].map((instance) => instance.stop()));
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],
});

export { expect } from '@playwright/test';
