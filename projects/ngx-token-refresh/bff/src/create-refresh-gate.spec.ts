import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  type TestApp,
  type TestAppOptions,
  callAtOnce,
  postgresDatabases,
  startTestApp,
  twoInstanceStores,
} from './bff-test-app.spec-helper';

// The gate, server-side, against oidc-provider with strict rotation (a refresh token presented twice
// revokes the sign-in). The clock is node:test's: moving it expires the tokens at the BFF and at the
// provider (both in this process) without waiting.

const LIMIT = { timeout: 60_000 };

describe('the refresh gate', LIMIT, () => {
  it('makes one refresh grant for 20 concurrent calls on an expired token, and all 20 succeed', async (context) => {
    await withApp(context, {}, async (app) => {
      await burstAfterExpiry(context, app, 20);
    });
  });

  it('does the same for two BFF instances on one store', async (context) => {
    await withApp(context, { instances: 2 }, async (app) => {
      await burstAfterExpiry(context, app, 20);
    });
  });

  it('makes one refresh grant for 20 concurrent calls whose token the API refuses, on two instances', async (context) => {
    await withApp(context, { instances: 2 }, async (app) => {
      const { cookies } = await app.signIn('ada');
      app.provider.expireAccessTokens();
      app.provider.resetStats();
      await callAtOnce(app, cookies, '/api/echo', 20);
      assert.equal(app.provider.stats().refreshGrants, 1);
      assert.equal(app.provider.stats().reuseDetected, 0);
    });
  });

  for (const { name, open } of postgresDatabases()) {
    it(`does the same for two BFF instances on one ${name} store, each with its own pool (PostgreSQL only)`, async (context) => {
      const database = await open();
      try {
        const stores = twoInstanceStores(database);
        await withApp(context, { instances: 2, stores }, async (app) => {
          await burstAfterExpiry(context, app, 20);
          await burstAfterExpiry(context, app, 20);
        });
      } finally {
        await database.close();
      }
    });
  }

  for (const { ttl, margin } of [
    { ttl: 60, margin: 15_000 },
    { ttl: 200, margin: 30_000 },
  ]) {
    it(`refreshes a ${ttl} s token ${margin / 1000} s ahead of expiry (a quarter of its lifetime, at most 30 s), not before`, async (context) => {
      await withApp(context, { provider: { accessTokenTtl: ttl } }, async (app) => {
        const { cookies, session } = await app.signIn('ada');
        context.mock.timers.setTime(session.accessTokenExpiresAt - margin - 1_000);
        assert.equal((await app.call(cookies, '/api/echo')).status, 200);
        assert.equal(app.provider.stats().refreshGrants, 0);
        context.mock.timers.setTime(session.accessTokenExpiresAt - margin + 1_000);
        assert.equal((await app.call(cookies, '/api/echo')).status, 200);
        assert.equal(app.provider.stats().refreshGrants, 1);
        assert.equal(app.provider.stats().userinfo.unauthorized, 0);
      });
    });
  }

  it('ends the session once when the provider refuses the refresh token (it was spent elsewhere)', async (context) => {
    await withApp(context, {}, async (app) => {
      const { cookies, session } = await app.signIn('ada');
      // Someone else spends the refresh token: the one the BFF holds is now rotated away.
      const stolen = await fetch(`${app.provider.issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('bff:bff-spec-secret').toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: session.refreshToken ?? '' }),
      });
      assert.equal(stolen.status, 200);
      app.provider.resetStats();
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);

      const answers = await Promise.all(Array.from({ length: 5 }, () => app.call(cookies, '/api/echo')));
      for (const answer of answers) {
        assert.equal(answer.status, 401);
        assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'SessionEnded');
        assert.deepEqual(answer.headers.getSetCookie(), [
          '__Host-bff-session=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0',
        ]);
      }
      const stats = app.provider.stats();
      assert.deepEqual(stats.refreshFailures, { invalid_grant: 1 });
      assert.equal(stats.reuseDetected, 1);
      assert.equal(await app.store.read(session.key, Date.now()), null);
      const next = await app.call(cookies, '/bff/session');
      assert.equal(((await next.json()) as { error: { code: string } }).error.code, 'NoSession');
    });
  });

  it('answers 503 and keeps the session while the provider is down, and refreshes once it is back', async (context) => {
    await withApp(context, {}, async (app) => {
      const { cookies, session } = await app.signIn('ada');
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
      await app.stopProvider();
      try {
        const down = await app.call(cookies, '/api/echo');
        assert.equal(down.status, 503);
        assert.equal(down.headers.get('retry-after'), '1');
        assert.deepEqual(down.headers.getSetCookie(), []);
        const { error } = (await down.json()) as { error: { code: string; message: string } };
        assert.equal(error.code, 'ProviderUnavailable');
        assert.match(error.message, /the refresh grant did not answer \(ECONNREFUSED\)/);
        assert.match(app.warnings.at(-1) ?? '', /could not be refreshed \(the session is kept\)/);
        assert.equal((await app.store.read(session.key, Date.now()))?.version, session.version);
      } finally {
        await app.restartProvider();
      }
      assert.equal((await app.call(cookies, '/api/echo')).status, 200);
      assert.equal(app.provider.stats().refreshGrants, 1);
    });
  });

  it('answers 503 when a refresh takes longer than refreshTimeout, and loses nothing', async (context) => {
    await withApp(context, { bff: { refreshTimeout: 300 } }, async (app) => {
      const { cookies, session } = await app.signIn('ada');
      context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
      app.provider.holdNextRefresh();
      const slow = await app.call(cookies, '/api/echo');
      assert.equal(slow.status, 503);
      assert.match(((await slow.json()) as { error: { message: string } }).error.message, /did not answer in time/);
      // The grant that gave up closed its connection before the provider saw it (the harness drops such
      // a grant): the refresh token is still the live one.
      await until(() => app.provider.stats().heldRefreshes.waitingClientGone === 1);
      assert.deepEqual(await app.provider.release(), { released: 0, dropped: 1 });
      assert.equal((await app.call(cookies, '/api/echo')).status, 200);
      assert.equal(app.provider.stats().reuseDetected, 0);
    });
  });

  it('lets close() wait for a refresh under way, which is saved, and then refuses to start one', async (context) => {
    await withApp(context, {}, async (app) => {
      const ada = await app.signIn('ada');
      const bob = await app.signIn('bob');
      context.mock.timers.setTime(ada.session.accessTokenExpiresAt + 1_000);
      app.provider.holdNextRefresh();
      const call = app.call(ada.cookies, '/api/echo');
      await until(() => app.provider.stats().heldRefreshes.held === 1);

      let closed = false;
      const closing = app.instances[0]?.close().then(() => (closed = true));
      await sleep(100);
      assert.equal(closed, false, 'close() did not wait for the refresh');
      await app.provider.release();
      await closing;
      assert.equal((await call).status, 200);
      assert.equal((await app.store.read(ada.session.key, Date.now()))?.version, ada.session.version + 1);

      const refused = await app.call(bob.cookies, '/api/echo');
      assert.equal(refused.status, 503);
      assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'ShuttingDown');
      assert.equal(app.provider.stats().refreshGrants, 1);
    });
  });
});

/**
 * Expires the signed-in session's token (by the clock), then makes `count` calls at once; checks that
 * they all succeed on one refresh grant, with one new token, and that no expired token reached the API.
 */
async function burstAfterExpiry(context: TestContext, app: TestApp, count: number): Promise<void> {
  const { cookies, session } = await app.signIn(`user-${app.store.created.length}`);
  context.mock.timers.setTime(session.accessTokenExpiresAt + 1_000);
  app.provider.resetStats();
  const calls = app.apiRequests.length;
  const changes = app.store.changes;
  await callAtOnce(app, cookies, '/api/echo', count);
  const stats = app.provider.stats();
  assert.equal(stats.refreshGrants, 1);
  assert.equal(stats.reuseDetected, 0);
  assert.deepEqual(stats.refreshFailures, {});
  assert.equal(stats.userinfo.unauthorized, 0);
  const tokens = new Set(app.apiRequests.slice(calls).map(({ headers }) => headers['authorization']));
  assert.equal(tokens.size, 1);
  assert.ok(!tokens.has(`Bearer ${session.accessToken}`));
  // The calls of one instance wait for its own refresh, not each for its turn at the store.
  assert.ok(app.store.changes - changes <= app.instances.length, `${app.store.changes - changes} changes`);
}

/** Runs `work` on a new app, on a clock of the test's own (starting now), and closes it. */
async function withApp(context: TestContext, options: TestAppOptions, work: (app: TestApp) => Promise<void>) {
  context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const app = await startTestApp(options);
  try {
    await work(app);
  } finally {
    await app.close();
  }
}

/** Waits (in real time, briefly) until `condition` holds: for an event, not for a clock. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await sleep(10);
  assert.ok(condition(), 'waited 2 s');
}
