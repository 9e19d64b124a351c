import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  type TestServer,
  createTestDatabase,
  login,
  post,
  readCookie,
  readError,
  refreshWithCookie,
  setCookieHeader,
  startTestServer,
} from './start-test-server.js';

// Issue 24, point 2: rate limits that an attacker spreading over addresses cannot dodge, that one
// address cannot turn against everyone behind it, and that hold with several instances. The servers
// here run on a clock that stands still unless a test moves it, so each delay is exact.

const DEVICE_COOKIE = '__Secure-loginDevice';
/** Clients behind the proxy the servers trust, one `X-Forwarded-For` each. */
const ADDRESSES = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5'];
const FREE_ATTEMPTS = 3;

/** The session (refresh family) an access token belongs to: its `sid`. */
function familyOf(accessToken: string): string {
  return (JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;
}

/** A clock that moves only when told to, shared by every server given it. */
function createStillClock(): { now: () => number; advance: (ms: number) => void } {
  let time = Date.now();
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** Signs in from `address`, with a device cookie when given one. */
function signIn(
  server: TestServer,
  username: string,
  password: string,
  options: { readonly address?: string; readonly device?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'X-Forwarded-For': options.address ?? ADDRESSES[0] };
  if (options.device !== undefined) headers['Cookie'] = `${DEVICE_COOKIE}=${options.device}`;
  return post(server, '/auth/login', { username, password }, headers);
}

async function statusesOf(responses: Promise<Response>[]): Promise<number[]> {
  return (await Promise.all(responses)).map((response) => response.status);
}

function count(statuses: readonly number[], status: number): number {
  return statuses.filter((each) => each === status).length;
}

/** The account's delays: free, then 1 s, 2 s, 4 s, ... up to 60 s; per-address limits out of the way. */
const DELAYS_ENV = {
  TRUST_PROXY: '127.0.0.1',
  LOGIN_ACCOUNT_FREE_ATTEMPTS: String(FREE_ATTEMPTS),
  LOGIN_ACCOUNT_MAX_DELAY_SECONDS: '60',
};

describe('sign-in delays per account (issue 24, point 2)', () => {
  let server: TestServer;
  const clock = createStillClock();
  before(async () => {
    server = await startTestServer({ env: DELAYS_ENV, now: clock.now });
  });
  after(() => server.close());

  it('55 wrong passwords for one account from 5 addresses: only the free attempts are checked, the rest get 429', async () => {
    const statuses = await statusesOf(
      Array.from({ length: 55 }, (_, i) => signIn(server, 'alan', `guess-${i}`, { address: ADDRESSES[i % 5] })),
    );

    assert.equal(count(statuses, 401), FREE_ATTEMPTS);
    assert.equal(count(statuses, 429), 55 - FREE_ATTEMPTS);
  });

  it('doubles the delay after each checked attempt, up to the cap, whatever the address', async () => {
    const retryAfter: number[] = [];
    for (let i = 0; i < 9; i++) {
      const blocked = await signIn(server, 'alan', 'wrong', { address: ADDRESSES[i % 5] });
      assert.equal(blocked.status, 429);
      const seconds = Number(blocked.headers.get('retry-after'));
      retryAfter.push(seconds);
      clock.advance(seconds * 1000);
      // The delay is over: this one is checked (and wrong), and sets the next delay.
      assert.equal((await signIn(server, 'alan', 'wrong', { address: ADDRESSES[(i + 1) % 5] })).status, 401);
    }

    assert.deepEqual(retryAfter, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('refuses the right password inside the delay (429, no cookie), takes it after, and then forgets the failures', async () => {
    const blocked = await signIn(server, 'alan', 'turing');
    assert.equal(blocked.status, 429);
    assert.equal((await readError(blocked)).code, 'TooManyRequests');
    assert.equal(setCookieHeader(blocked, '__Secure-refreshToken'), null);

    clock.advance(Number(blocked.headers.get('retry-after')) * 1000);
    assert.equal((await signIn(server, 'alan', 'turing')).status, 200);

    const after = await statusesOf(Array.from({ length: FREE_ATTEMPTS + 1 }, () => signIn(server, 'alan', 'wrong')));
    assert.deepEqual(after.sort(), [...Array(FREE_ATTEMPTS).fill(401), 429]);
  });

  it('delays an account that does not exist exactly as one that does (no enumeration)', async () => {
    const sequence = async (username: string) => {
      const statuses = await statusesOf(Array.from({ length: 6 }, () => signIn(server, username, 'wrong')));
      const blocked = await signIn(server, username, 'wrong');
      return [...statuses.sort(), blocked.status, blocked.headers.get('retry-after')];
    };

    assert.deepEqual(await sequence('nobody-here'), await sequence('ada'));
  });

  it('forgets the attempts a day after the last one', async () => {
    const statuses = await statusesOf(
      Array.from({ length: FREE_ATTEMPTS + 1 }, () => signIn(server, 'forgetful', 'wrong')),
    );
    assert.equal(count(statuses, 429), 1);

    clock.advance(24 * 60 * 60 * 1000);
    const later = await statusesOf(Array.from({ length: FREE_ATTEMPTS }, () => signIn(server, 'forgetful', 'wrong')));
    assert.deepEqual(later, Array(FREE_ATTEMPTS).fill(401));
  });
});

describe('sign-in attempts that reach the database out of order', () => {
  it('takes a free attempt that read the clock before the last one counted (a double click)', async () => {
    const database = await createTestDatabase();
    try {
      const policy = { freeAttempts: 3, maxDelaySeconds: 60, forgetAfterSeconds: 86_400 };
      const later = new Date();
      const earlier = new Date(later.getTime() - 5);
      const first = await database.repository.reserveLoginAttempt('account:double-click-0123456789', later, policy);
      const second = await database.repository.reserveLoginAttempt('account:double-click-0123456789', earlier, policy);

      assert.deepEqual([first, second], [{ allowed: true }, { allowed: true }]);
    } finally {
      await database.close();
    }
  });
});

describe('trusted devices: the account owner is not locked out by the account delays (issue 24, point 2)', () => {
  let server: TestServer;
  const clock = createStillClock();
  let device: string;
  before(async () => {
    server = await startTestServer({
      env: { ...DELAYS_ENV, LOGIN_RATE_LIMIT_MAX: '20' },
      now: clock.now,
    });
    const first = await signIn(server, 'alan', 'turing', { address: ADDRESSES[1] });
    assert.equal(first.status, 200);
    device = readCookie(first, DEVICE_COOKIE) ?? '';
  });
  after(() => server.close());

  it('sets an HttpOnly, Secure, SameSite=Strict device cookie for the login path only, for a year', async () => {
    const response = await signIn(server, 'alan', 'turing', { address: ADDRESSES[1] });
    const header = setCookieHeader(response, DEVICE_COOKIE) ?? '';

    assert.match(header, /; Max-Age=31536000/);
    assert.match(header, /; Path=\/auth\/login/);
    assert.match(header, /; HttpOnly/);
    assert.match(header, /; Secure/);
    assert.match(header, /; SameSite=Strict/);
    assert.doesNotMatch(header, /Domain=/i);
  });

  it('lets the device sign in while an attacker keeps the account waiting', async () => {
    await statusesOf(Array.from({ length: 10 }, () => signIn(server, 'alan', 'wrong', { address: ADDRESSES[4] })));
    assert.equal((await signIn(server, 'alan', 'turing', { address: ADDRESSES[4] })).status, 429);

    const owner = await signIn(server, 'alan', 'turing', { address: ADDRESSES[1], device });

    assert.equal(owner.status, 200);
    // The device keeps its id, so its own delays stay its own.
    assert.equal(readCookie(owner, DEVICE_COOKIE), device);
  });

  it('gives the device delays of its own', async () => {
    const statuses = await statusesOf(
      Array.from({ length: FREE_ATTEMPTS + 2 }, () => signIn(server, 'alan', 'wrong', { device })),
    );
    assert.equal(count(statuses, 401), FREE_ATTEMPTS);
    assert.equal((await signIn(server, 'alan', 'turing', { device })).status, 429);
  });

  it('counts a device cookie of another account, a forged one or a tampered one as no device', async () => {
    const adaDevice = readCookie(await signIn(server, 'ada', 'lovelace', { address: ADDRESSES[2] }), DEVICE_COOKIE);
    const flipped = `${device.slice(0, 10)}${device[10] === 'A' ? 'B' : 'A'}${device.slice(11)}`;

    for (const cookie of [adaDevice ?? '', flipped, 'x'.repeat(64)]) {
      // Alan's account is waiting (above): without a trusted device, so is this attempt.
      assert.equal((await signIn(server, 'alan', 'turing', { address: ADDRESSES[3], device: cookie })).status, 429);
    }
  });

  it('gives a trusted device a per-address window of its own: a used-up address does not lock it out, nor does it sign in without limit', async () => {
    const strict = await startTestServer({
      env: { TRUST_PROXY: '127.0.0.1', LOGIN_RATE_LIMIT_MAX: '2' },
      now: createStillClock().now,
    });
    try {
      const owner = await signIn(strict, 'ada', 'lovelace', { address: ADDRESSES[0] });
      const ownerDevice = readCookie(owner, DEVICE_COOKIE) ?? '';
      assert.equal((await signIn(strict, 'alan', 'wrong', { address: ADDRESSES[0] })).status, 401);
      assert.equal((await signIn(strict, 'alan', 'turing', { address: ADDRESSES[0] })).status, 429);

      const device = () => signIn(strict, 'ada', 'lovelace', { address: ADDRESSES[0], device: ownerDevice });

      // Its own window of 2, successes counted: a device cannot make sessions (and scrypt work) at will.
      assert.deepEqual([(await device()).status, (await device()).status, (await device()).status], [200, 200, 429]);
      // For the account it names only: for another, it is the address's used-up window.
      assert.equal(
        (await signIn(strict, 'alan', 'turing', { address: ADDRESSES[0], device: ownerDevice })).status,
        429,
      );
    } finally {
      await strict.close();
    }
  });
});

describe('refresh limits count per session, so neither a neighbour nor a storm of bad tokens uses them up (issue 24, point 2)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: '127.0.0.1', REFRESH_RATE_LIMIT_MAX: '3' } });
  });
  after(() => server.close());

  it('answers a session 200 after its address sent more forged and stale tokens than the limit', async () => {
    const session = await login(server);
    const forged = await statusesOf(
      Array.from({ length: 6 }, () =>
        fetch(`${server.url}/auth/refresh`, {
          method: 'POST',
          headers: { Cookie: '__Secure-refreshToken=forged', 'X-Forwarded-For': ADDRESSES[0] },
        }),
      ),
    );
    assert.deepEqual(forged.sort(), [401, 401, 401, 429, 429, 429]);

    const genuine = await fetch(`${server.url}/auth/refresh`, {
      method: 'POST',
      headers: { Cookie: `__Secure-refreshToken=${session.refreshToken}`, 'X-Forwarded-For': ADDRESSES[0] },
    });
    assert.equal(genuine.status, 200);
  });

  it('limits one session that refreshes too often, and only that session', async () => {
    const session = await login(server);
    const other = await login(server);
    const statuses = await statusesOf(Array.from({ length: 4 }, () => refreshWithCookie(server, session.refreshToken)));

    assert.deepEqual(statuses.sort(), [200, 200, 200, 429]);
    assert.equal((await refreshWithCookie(server, other.refreshToken)).status, 200);
  });
});

describe('housekeeping of the counts', () => {
  it('deletes ended windows and forgotten attempts now and then, from a refresh as from a login', async () => {
    const clock = createStillClock();
    const server = await startTestServer({ env: DELAYS_ENV, now: clock.now });
    try {
      const keys = async (table: string) =>
        (await server.database.engine.query<{ key: string }>(`SELECT key FROM ${table} ORDER BY key`)).map(
          (row) => row.key,
        );
      assert.equal((await signIn(server, 'nobody-here', 'wrong')).status, 401);
      const session = await login(server);
      assert.deepEqual(await keys('rate_limit_windows'), ['/auth/login|127.0.0.1', '/auth/login|203.0.113.1']);
      assert.equal((await keys('login_attempts')).length, 1);

      // A day later: the login's window has long ended and the failed attempt is forgotten. The next
      // refresh (no login meanwhile) clears both, and counts its own window.
      clock.advance(24 * 60 * 60 * 1000 + 1000);
      assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);

      assert.deepEqual(await keys('rate_limit_windows'), [`/auth/refresh|session:${familyOf(session.accessToken)}`]);
      assert.deepEqual(await keys('login_attempts'), []);
    } finally {
      await server.close();
    }
  });
});

describe('two instances on one database count together (issue 24, point 2)', () => {
  let first: TestServer;
  let second: TestServer;
  const clock = createStillClock();
  before(async () => {
    const database = await createTestDatabase();
    const env = { ...DELAYS_ENV, LOGIN_RATE_LIMIT_MAX: '4' };
    first = await startTestServer({ env, database, now: clock.now });
    second = await startTestServer({ env, database: await database.connectAgain(), now: clock.now });
  });
  after(async () => {
    await second.close();
    await second.database.close();
    await first.close();
    await first.database.close();
  });

  it(`per account: 40 wrong passwords at once, half to each instance, get ${FREE_ATTEMPTS} answers 401`, async () => {
    const statuses = await statusesOf(
      Array.from({ length: 40 }, (_, i) =>
        // Ten addresses, four attempts each: within the per-address limit, so only the account's delays act.
        signIn(i % 2 === 0 ? first : second, 'alan', `guess-${i}`, { address: `198.51.100.${i % 10}` }),
      ),
    );

    assert.equal(count(statuses, 401), FREE_ATTEMPTS);
    assert.equal(count(statuses, 429), 40 - FREE_ATTEMPTS);
  });

  it('per address: the limit of 4 holds for the two instances together, not 4 each', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const server = i % 2 === 0 ? first : second;
      statuses.push((await signIn(server, `user-${i}`, 'wrong', { address: '192.0.2.77' })).status);
    }

    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429, 429, 429]);
  });
});
