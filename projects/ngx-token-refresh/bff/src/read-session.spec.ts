import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';

import { type TestApp, startTestApp } from './bff-test-app.spec-helper';

// Idle and absolute lifetimes, judged by the server on a clock the test moves (node:test's): no spec
// here waits for time to pass.

const MINUTE = 60_000;

describe('session lifetimes', { timeout: 60_000 }, () => {
  it('ends a session unused for idleTimeout, counting every request as a use, and revokes its grant', async (context) => {
    await withApp(context, { idleTimeout: 10 * MINUTE }, async (app, start) => {
      const { cookies, session } = await app.signIn('ada');
      const revoked = app.provider.stats().revoked;
      for (const minutes of [9, 18, 27]) {
        context.mock.timers.setTime(start + minutes * MINUTE);
        assert.equal((await app.call(cookies, '/api/echo')).status, 200, `after ${minutes} minutes`);
      }
      context.mock.timers.setTime(start + 37 * MINUTE);
      const ended = await app.call(cookies, '/bff/session');
      assert.equal(ended.status, 401);
      assert.equal(((await ended.json()) as { error: { code: string } }).error.code, 'SessionEnded');
      const next = await app.call(cookies, '/bff/session');
      assert.equal(((await next.json()) as { error: { code: string } }).error.code, 'NoSession');

      // Deleted and revoked in the background; close() waits for that.
      await app.instances[0]?.close();
      assert.equal(await app.store.read(session.key, 0), null);
      assert.equal(app.provider.stats().revoked, revoked + 1);
    });
  });

  it('records a use at most once a minute (or a tenth of idleTimeout), which the session answer shows', async (context) => {
    await withApp(context, { idleTimeout: 10 * MINUTE }, async (app, start) => {
      const { cookies } = await app.signIn('ada');
      const idleEnd = async () =>
        ((await (await app.call(cookies, '/bff/session')).json()) as { idleExpiresAt: number }).idleExpiresAt;
      context.mock.timers.setTime(start + 30_000);
      assert.equal(await idleEnd(), start + 10 * MINUTE);
      context.mock.timers.setTime(start + 61_000);
      assert.equal(await idleEnd(), start + 61_000 + 10 * MINUTE);
    });
  });

  it('ends a session at absoluteTimeout however busy, and the cookie with it', async (context) => {
    await withApp(context, { idleTimeout: 30 * MINUTE, absoluteTimeout: 60 * MINUTE }, async (app, start) => {
      const { cookies } = await app.signIn('ada');
      const value = cookies.list(app.baseUrl).find(({ name }) => name === '__Host-bff-session')?.value ?? '';
      for (const minutes of [20, 40, 59]) {
        context.mock.timers.setTime(start + minutes * MINUTE);
        const info = await app.call(cookies, '/bff/session');
        assert.equal(info.status, 200, `after ${minutes} minutes`);
        assert.equal(((await info.json()) as { expiresAt: number }).expiresAt, start + 60 * MINUTE);
      }
      context.mock.timers.setTime(start + 60 * MINUTE);
      // The browser drops the cookie then (its Max-Age is the absolute lifetime)...
      assert.deepEqual(cookies.list(app.baseUrl), []);
      // ...and the server refuses it all the same, should a browser (or a thief) keep sending it.
      const kept = await fetch(`${app.baseUrl}/bff/session`, {
        headers: { 'x-csrf': '1', cookie: `__Host-bff-session=${value}` },
      });
      assert.equal(kept.status, 401);
      assert.equal(((await kept.json()) as { error: { code: string } }).error.code, 'SessionEnded');
    });
  });
});

/** Runs `work` on a new app whose BFF has `lifetimes`, on a clock of the test's own starting at `start`. */
async function withApp(
  context: TestContext,
  lifetimes: { idleTimeout?: number; absoluteTimeout?: number },
  work: (app: TestApp, start: number) => Promise<void>,
): Promise<void> {
  const start = Date.now();
  context.mock.timers.enable({ apis: ['Date'], now: start });
  const app = await startTestApp({ bff: lifetimes, provider: { accessTokenTtl: 3_600 } });
  try {
    await work(app, start);
  } finally {
    await app.close();
  }
}
