import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { accountAttemptKey } from '../src/login-devices.js';
import { createPasswordChecks } from '../src/password-checks.js';
import { type TestServer, post, readCookie, readError, setCookieHeader, startTestServer } from './start-test-server.js';

const DEVICE_COOKIE = '__Secure-loginDevice';

describe('sign-ins under a cap on password checks (PASSWORD_CHECK_CONCURRENCY, PASSWORD_CHECK_QUEUE)', () => {
  let server: TestServer;
  let device: string;
  /** The names whose account was looked up (inside the slot, just before the password check), in order. */
  const checked: string[] = [];
  /** The attempt keys counted. */
  const reserved: string[] = [];
  /** While set, the next account lookup waits for it: a password check that holds the one slot. */
  let hold: { entered: () => void; release: Promise<void> } | null = null;

  before(async () => {
    server = await startTestServer({
      env: { PASSWORD_CHECK_CONCURRENCY: '1', PASSWORD_CHECK_QUEUE: '1' },
      wrapRepository: (repository) => ({
        ...repository,
        reserveLoginAttempt: (key, now, policy) => {
          reserved.push(key);
          return repository.reserveLoginAttempt(key, now, policy);
        },
        findAccount: async (username) => {
          checked.push(username);
          const held = hold;
          hold = null;
          if (held) {
            held.entered();
            await held.release;
          }
          return repository.findAccount(username);
        },
      }),
    });
    const first = await post(server, '/auth/login', { username: 'ada', password: 'lovelace' });
    assert.equal(first.status, 200);
    device = readCookie(first, DEVICE_COOKIE) ?? assert.fail('no device cookie');
  });
  after(() => server.close());

  it('refuses a sign-in at once with 503 when its queue is full, counting nothing; a trusted device of the account goes first', async () => {
    checked.length = 0;
    reserved.length = 0;
    let release!: () => void;
    const entered = new Promise<void>((resolve) => {
      hold = { entered: resolve, release: new Promise<void>((done) => (release = done)) };
    });
    // One check holds the only slot...
    const holder = post(server, '/auth/login', { username: 'alan', password: 'turing' });
    await entered;
    // ...two sign-ins from new browsers come for the one place in their queue: one waits, the other is
    // refused, and answers first (the waiting one cannot answer while the slot is held).
    const others = ['nobody-1', 'nobody-2'].map((username) =>
      post(server, '/auth/login', { username, password: 'a guess' }).then((response) => ({ username, response })),
    );
    const refused = await Promise.race(others);
    // Two from ada's trusted device: their own queue, which the full one of the others does not touch.
    const trusted = [0, 1].map(() =>
      post(server, '/auth/login', { username: 'ada', password: 'lovelace' }, { Cookie: `${DEVICE_COOKIE}=${device}` }),
    );
    const refusedTrusted = await Promise.race(trusted);
    release();
    const answers = await Promise.all([
      holder,
      ...others.map((other) => other.then(({ response }) => response)),
      ...trusted,
    ]);

    assert.equal(refused.response.status, 503);
    assert.equal((await readError(refused.response)).code, 'ServiceUnavailable');
    assert.equal(refused.response.headers.get('retry-after'), '1');
    assert.equal(setCookieHeader(refused.response, '__Secure-refreshToken'), null);
    assert.equal(refusedTrusted.status, 503);
    const waiting = refused.username === 'nobody-1' ? 'nobody-2' : 'nobody-1';
    // The slot went to the trusted device first, though the other sign-in had waited longer.
    assert.deepEqual(checked, ['alan', 'ada', waiting]);
    assert.ok(reserved.includes(accountAttemptKey(waiting)));
    assert.ok(!reserved.includes(accountAttemptKey(refused.username)), 'the refused sign-in counted an attempt');
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 200, 401, 503, 503].sort());
  });
});

describe('createPasswordChecks', () => {
  it('with concurrency 0 starts every check at once and refuses none', async () => {
    const checks = createPasswordChecks({ concurrency: 0, queueLength: 0 });
    const slots = Array.from({ length: 100 }, () => checks.acquire('other'));
    assert.ok(slots.every((slot) => slot !== undefined));
    await Promise.all(slots);
    assert.equal(checks.full('other'), false);
  });

  it('frees a slot once, however often its release is called', async () => {
    const checks = createPasswordChecks({ concurrency: 1, queueLength: 2 });
    const release = await checks.acquire('other');
    const order: string[] = [];
    void checks.acquire('other')?.then(() => order.push('first'));
    void checks.acquire('other')?.then(() => order.push('second'));
    release?.();
    release?.();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, ['first']);
  });
});
