import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { decodeJwt } from 'jose';

import { createRefreshTokens } from '../src/refresh-tokens.js';
import {
  TEST_JWT_SECRET,
  type Session,
  type TestServer,
  login,
  post,
  readCookie,
  readError,
  refreshWithCookie,
  setCookieHeader,
  startTestServer,
} from './start-test-server.js';

// Rotation, reuse detection and the overlap window (REFRESH_TOKEN_REUSE_INTERVAL_SECONDS, 30 s by
// default): the live token rotates, but at most once per window: within the window of its rotation the
// live token and its immediate predecessor both get the live token again; anything older, or the
// predecessor after the window, ends the session. The races of several clients: refresh-race.test.ts.

const WINDOW_MS = 30_000;

describe('refresh-token rotation and the overlap window', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** A server of its own over the suite's database, with its own clock (or configuration). */
  async function withServer(
    env: Readonly<Record<string, string>>,
    work: (clocked: TestServer) => Promise<void>,
  ): Promise<void> {
    const clocked = await startTestServer({ database: server.database, env });
    try {
      await work(clocked);
    } finally {
      await clocked.close();
    }
  }

  /** The family row of a session, as stored. */
  async function family(session: Session): Promise<{ generation: number; revoked_reason: string | null }> {
    const rows = await server.database.engine.query<{ generation: number; revoked_reason: string | null }>(
      'SELECT generation, revoked_reason FROM refresh_token_families WHERE id = $1',
      [decodeJwt(session.accessToken)['sid']],
    );
    assert.equal(rows.length, 1);
    return rows[0] as { generation: number; revoked_reason: string | null };
  }

  /** Refreshes with the cookie and returns the rotated cookie, checking for a 200. */
  async function rotate(target: TestServer, refreshToken: string): Promise<string> {
    const response = await refreshWithCookie(target, refreshToken);
    assert.equal(response.status, 200);
    return readCookie(response, '__Secure-refreshToken') ?? '';
  }

  async function assertReuse(response: Response): Promise<void> {
    assert.equal(response.status, 401);
    const error = await readError(response);
    assert.equal(error.code, 'InvalidRefreshToken');
    assert.match(error.message, /already used/);
    assert.equal(readCookie(response, '__Secure-refreshToken'), '');
  }

  describe('within the window', () => {
    it('answers the predecessor with 200, a new access token and the live cookie itself; the live token too, unrotated', async () => {
      const session = await login(server);
      const first = await refreshWithCookie(server, session.refreshToken);
      const live = readCookie(first, '__Secure-refreshToken') ?? '';
      const firstAccess = ((await first.json()) as { accessToken: string }).accessToken;

      const again = await refreshWithCookie(server, session.refreshToken);

      assert.equal(again.status, 200);
      const { accessToken } = (await again.json()) as { accessToken: string };
      assert.notEqual(accessToken, firstAccess);
      assert.equal(decodeJwt(accessToken)['sid'], decodeJwt(session.accessToken)['sid']);
      assert.equal(readCookie(again, '__Secure-refreshToken'), live);
      // The cookie lives to the session's end, as after a rotation.
      const maxAge = Number(/Max-Age=(\d+)/.exec(setCookieHeader(again, '__Secure-refreshToken') ?? '')?.[1]);
      assert.ok(maxAge > 7 * 86_400 - 60 && maxAge <= 7 * 86_400, `Max-Age=${maxAge}`);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });

      assert.equal(await rotate(server, live), live);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });
    });

    it('answers the live token with itself within the window of its rotation: a new access token, the cookie to the session end', async () => {
      const session = await login(server);
      const first = await refreshWithCookie(server, session.refreshToken);
      const live = readCookie(first, '__Secure-refreshToken') ?? '';
      const firstAccess = ((await first.json()) as { accessToken: string }).accessToken;

      const again = await refreshWithCookie(server, live);

      assert.equal(again.status, 200);
      const { accessToken } = (await again.json()) as { accessToken: string };
      assert.notEqual(accessToken, firstAccess);
      assert.equal(decodeJwt(accessToken)['sid'], decodeJwt(session.accessToken)['sid']);
      assert.equal(readCookie(again, '__Secure-refreshToken'), live);
      // Max-Age is what is left of the session, exactly as after a rotation: the family's end never moves.
      const maxAge = Number(/Max-Age=(\d+)/.exec(setCookieHeader(again, '__Secure-refreshToken') ?? '')?.[1]);
      assert.ok(maxAge > 7 * 86_400 - 60 && maxAge <= 7 * 86_400, `Max-Age=${maxAge}`);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });
    });

    it('keeps the session through T0 → T1, T1 again, then T0: the grandparent of a chain that never formed (issue 24)', async () => {
      const session = await login(server);
      const t1 = await rotate(server, session.refreshToken);
      // Another client already holding T1 refreshes with it within the window: no second rotation.
      const t2 = await rotate(server, t1);

      const late = await refreshWithCookie(server, session.refreshToken);

      assert.equal(late.status, 200);
      assert.equal(readCookie(late, '__Secure-refreshToken'), t2);
      assert.equal((await refreshWithCookie(server, t2)).status, 200);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });
    });

    it('rotates the live token again once the window of its rotation is over, and not before', async () => {
      await withServer({}, async (clocked) => {
        const session = await login(clocked);
        const t1 = await rotate(clocked, session.refreshToken);
        clocked.advanceClock(WINDOW_MS - 2000);
        assert.equal(await rotate(clocked, t1), t1);
        clocked.advanceClock(2000);

        const t2 = await rotate(clocked, t1);

        assert.notEqual(t2, t1);
        assert.deepEqual(await family(session), { generation: 2, revoked_reason: null });
        // T1 is now the predecessor within T2's window; T2 itself is answered unrotated.
        assert.equal(await rotate(clocked, t1), t2);
        assert.equal(await rotate(clocked, t2), t2);
      });
    });

    it('answers the predecessor in the body flow with the live refreshToken in the body', async () => {
      const session = await login(server);
      const first = await post(server, '/auth/refresh', { refreshToken: session.refreshToken });
      const live = ((await first.json()) as { refreshToken: string }).refreshToken;

      const again = await post(server, '/auth/refresh', { refreshToken: session.refreshToken });

      assert.equal(again.status, 200);
      const body = (await again.json()) as { accessToken: string; refreshToken: string };
      assert.equal(body.refreshToken, live);
      assert.equal(setCookieHeader(again, '__Secure-refreshToken'), null);
      const next = await post(server, '/auth/refresh', { refreshToken: live });
      assert.equal(next.status, 200);
      // The live token too, within the window of its rotation: answered with itself, in the body.
      assert.equal(((await next.json()) as { refreshToken: string }).refreshToken, live);
    });

    it('keeps the session after a lost answer: the old token again gets the live one, and the session goes on', async () => {
      const session = await login(server);
      // The answer of this refresh never reaches the client (a dropped connection, a closed tab).
      await (await refreshWithCookie(server, session.refreshToken)).arrayBuffer();

      const retried = await rotate(server, session.refreshToken);
      const next = await rotate(server, retried);

      assert.equal(next, retried);
      assert.equal((await refreshWithCookie(server, next)).status, 200);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });
    });
  });

  describe('after the window', () => {
    it('ends the session when the predecessor comes after the window: 401, and the live token is dead too', async () => {
      await withServer({}, async (clocked) => {
        const session = await login(clocked);
        const live = await rotate(clocked, session.refreshToken);
        clocked.advanceClock(WINDOW_MS + 1000);

        await assertReuse(await refreshWithCookie(clocked, session.refreshToken));

        assert.equal((await refreshWithCookie(clocked, live)).status, 401);
        assert.deepEqual(await family(session), { generation: 1, revoked_reason: 'reuse' });
      });
    });

    it('ends the session when a token two rotations old comes back, at once after the second rotation (rotated normally, a window apart)', async () => {
      await withServer({}, async (clocked) => {
        const session = await login(clocked);
        const t1 = await rotate(clocked, session.refreshToken);
        clocked.advanceClock(WINDOW_MS);
        const t2 = await rotate(clocked, t1);
        assert.notEqual(t2, t1);

        await assertReuse(await refreshWithCookie(clocked, session.refreshToken));

        assert.equal((await refreshWithCookie(clocked, t2)).status, 401);
        assert.equal((await refreshWithCookie(clocked, t1)).status, 401);
        assert.deepEqual(await family(session), { generation: 2, revoked_reason: 'reuse' });
      });
    });

    it('ends the session when a token three rotations old comes back long after', async () => {
      await withServer({}, async (clocked) => {
        const session = await login(clocked);
        let token = session.refreshToken;
        for (let step = 0; step < 3; step++) {
          token = await rotate(clocked, token);
          clocked.advanceClock(WINDOW_MS);
        }
        clocked.advanceClock(3_600_000);

        await assertReuse(await refreshWithCookie(clocked, session.refreshToken));

        assert.equal((await refreshWithCookie(clocked, token)).status, 401);
        assert.deepEqual(await family(session), { generation: 3, revoked_reason: 'reuse' });
      });
    });

    it('revokes only the family of the reused token: other sessions of the same account live on', async () => {
      await withServer({}, async (clocked) => {
        const victim = await login(clocked);
        const other = await login(clocked);
        const t1 = await rotate(clocked, victim.refreshToken);
        clocked.advanceClock(WINDOW_MS);
        await rotate(clocked, t1);
        await assertReuse(await refreshWithCookie(clocked, victim.refreshToken));

        assert.equal((await refreshWithCookie(clocked, other.refreshToken)).status, 200);
      });
    });

    it('never extends the window: answered 25 s after the rotation, the predecessor is reuse at 30 s', async () => {
      await withServer({}, async (clocked) => {
        const session = await login(clocked);
        const live = await rotate(clocked, session.refreshToken);
        // 5 s short of the window's end: room for real time passing between the requests.
        clocked.advanceClock(WINDOW_MS - 5000);
        assert.equal(await rotate(clocked, session.refreshToken), live);
        clocked.advanceClock(5000);

        await assertReuse(await refreshWithCookie(clocked, session.refreshToken));

        assert.equal((await refreshWithCookie(clocked, live)).status, 401);
      });
    });
  });

  describe('with REFRESH_TOKEN_REUSE_INTERVAL_SECONDS=0 (strict single use)', () => {
    it('ends the session when the predecessor comes back at once', async () => {
      await withServer({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }, async (strict) => {
        const session = await login(strict);
        const live = await rotate(strict, session.refreshToken);

        await assertReuse(await refreshWithCookie(strict, session.refreshToken));

        assert.equal((await refreshWithCookie(strict, live)).status, 401);
        assert.deepEqual(await family(session), { generation: 1, revoked_reason: 'reuse' });
      });
    });

    it('ends the session for the predecessor even at an instance whose clock is behind the one that rotated', async () => {
      await withServer({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }, async (ahead) => {
        await withServer({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }, async (behind) => {
          ahead.advanceClock(1000);
          const session = await login(ahead);
          await rotate(ahead, session.refreshToken);

          await assertReuse(await refreshWithCookie(behind, session.refreshToken));

          assert.deepEqual(await family(session), { generation: 1, revoked_reason: 'reuse' });
        });
      });
    });
  });

  describe('concurrent refreshes of one token', () => {
    /**
     * Sends 8 refreshes of one fresh session's token at once, spread over `targets`, 20 times over,
     * and checks each burst with `check`.
     */
    async function bursts(
      targets: readonly TestServer[],
      check: (responses: Response[], session: Session) => Promise<void>,
    ): Promise<void> {
      for (let trial = 0; trial < 20; trial++) {
        const session = await login(targets[0] as TestServer);
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, index) =>
            refreshWithCookie(targets[index % targets.length] as TestServer, session.refreshToken),
          ),
        );
        await check(responses, session);
      }
    }

    /** Within the window: every one gets 200 and the same new token, and the family moved on once. */
    async function allAnsweredAlike(responses: Response[], session: Session): Promise<void> {
      assert.deepEqual(
        responses.map((response) => response.status),
        Array.from({ length: 8 }, () => 200),
      );
      const cookies = new Set(responses.map((response) => readCookie(response, '__Secure-refreshToken')));
      assert.equal(cookies.size, 1);
      const [live] = cookies;
      assert.notEqual(live, session.refreshToken);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: null });
      assert.equal((await refreshWithCookie(server, live ?? '')).status, 200);
    }

    /** Strict single use: one 200, seven reuses, and the family revoked (the winner's token too). */
    async function oneWinnerThenRevoked(responses: Response[], session: Session): Promise<void> {
      assert.deepEqual(responses.map((response) => response.status).sort(), [200, 401, 401, 401, 401, 401, 401, 401]);
      assert.deepEqual(await family(session), { generation: 1, revoked_reason: 'reuse' });
      const winner = responses.find((response) => response.status === 200) as Response;
      assert.equal((await refreshWithCookie(server, readCookie(winner, '__Secure-refreshToken') ?? '')).status, 401);
    }

    /** A second instance over the same database: its own connection pool on PostgreSQL. */
    async function withTwin(
      env: Readonly<Record<string, string>>,
      work: (first: TestServer, twin: TestServer) => Promise<void>,
    ): Promise<void> {
      const twinDatabase = await server.database.connectAgain();
      const first = await startTestServer({ database: server.database, env });
      const twin = await startTestServer({ database: twinDatabase, env });
      try {
        await work(first, twin);
      } finally {
        await twin.close();
        await first.close();
        await twinDatabase.close();
      }
    }

    it('answers 8 at once on one instance all with 200 and one and the same token, rotating once (20 trials)', async () => {
      await bursts([server], allAnsweredAlike);
    });

    it('answers 8 at once across two instances sharing the database alike, rotating once (20 trials)', async () => {
      await withTwin({}, (first, twin) => bursts([first, twin], allAnsweredAlike));
    });

    it('lets exactly one of 8 win and revokes the family with REFRESH_TOKEN_REUSE_INTERVAL_SECONDS=0, across two instances (20 trials)', async () => {
      await withTwin({ REFRESH_TOKEN_REUSE_INTERVAL_SECONDS: '0' }, (first, twin) =>
        bursts([first, twin], oneWinnerThenRevoked),
      );
    });

    it('accepts a token of one instance at the other (shared JWT_SECRET and database)', async () => {
      await withTwin({}, async (first, twin) => {
        const session = await login(twin);
        assert.equal((await refreshWithCookie(first, session.refreshToken)).status, 200);
      });
    });
  });

  it('keeps a session at one row whatever its rotations: after 50, one row at generation 50 and no other refresh table', async () => {
    const session = await login(server);
    await withServer({}, async (clocked) => {
      let token = session.refreshToken;
      for (let step = 0; step < 50; step++) {
        token = await rotate(clocked, token);
        clocked.advanceClock(WINDOW_MS);
      }
    });

    assert.deepEqual(await family(session), { generation: 50, revoked_reason: null });
    const tables = await server.database.engine.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_name LIKE '%refresh%' ORDER BY table_name`,
    );
    assert.deepEqual(tables, [{ table_name: 'refresh_token_families' }]);
  });

  describe('forged tokens', () => {
    const otherKey = createRefreshTokens(new TextEncoder().encode('another-server-key-0123456789-0123456789'));
    const ourKey = createRefreshTokens(new TextEncoder().encode(TEST_JWT_SECRET));

    for (const [name, forge] of [
      ['with one character of its MAC changed', (token: string) => swapCharacter(token, 50)],
      [
        'with its last character spelt another way (same bytes, not canonical)',
        (token: string) => swapCharacter(token, 69),
      ],
      ['truncated by one character', (token: string) => token.slice(0, -1)],
      ['truncated to its family id and generation', (token: string) => token.slice(0, 27)],
      [
        'made with another server key for the same session',
        (token: string) => otherKey.derive({ ...(ourKey.parse(token) ?? assert.fail()), generation: 0 }),
      ],
      [
        'made with the right key at a generation beyond what the database holds (2^32 - 1)',
        (token: string) => ourKey.derive({ ...(ourKey.parse(token) ?? assert.fail()), generation: 0xffff_ffff }),
      ],
    ] as const) {
      it(`refuses a token ${name} with 401, and the session is untouched`, async () => {
        const session = await login(server);
        const forged = forge(session.refreshToken);
        assert.notEqual(forged, session.refreshToken);

        const response = await refreshWithCookie(server, forged);

        assert.equal(response.status, 401);
        assert.equal((await readError(response)).code, 'InvalidRefreshToken');
        assert.deepEqual(await family(session), { generation: 0, revoked_reason: null });
        assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);
      });
    }

    it('refuses the live token with its generation set back to an older one, without ending the session', async () => {
      const session = await login(server);
      let live = '';
      await withServer({}, async (clocked) => {
        const t1 = await rotate(clocked, session.refreshToken);
        clocked.advanceClock(WINDOW_MS);
        live = await rotate(clocked, t1);
      });
      // What anybody could make from a family id (the access token's sid) if only the database decided:
      // an "old token" whose presentation would end the session as reuse.
      const bytes = Buffer.from(live, 'base64url');
      bytes.writeUInt32BE(0, 16);
      const forged = bytes.toString('base64url');

      const response = await refreshWithCookie(server, forged);

      assert.equal(response.status, 401);
      assert.doesNotMatch((await readError(response)).message, /already used/);
      assert.deepEqual(await family(session), { generation: 2, revoked_reason: null });
      assert.equal((await refreshWithCookie(server, live)).status, 200);
    });

    it('revokes nothing at logout with a tampered token', async () => {
      const session = await login(server);

      const response = await post(server, '/auth/logout', { refreshToken: swapCharacter(session.refreshToken, 50) });

      assert.equal(response.status, 204);
      assert.deepEqual(await family(session), { generation: 0, revoked_reason: null });
      assert.equal((await refreshWithCookie(server, session.refreshToken)).status, 200);
    });
  });
});

/**
 * The token with the character at `index` replaced by another one of the base64url alphabet. For the
 * last character (which carries only 2 bits of the token), one with the same 2 bits, so the bytes stay
 * the same and only the spelling changes.
 */
function swapCharacter(token: string, index: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const position = alphabet.indexOf(token[index] ?? '');
  const replacement = index === token.length - 1 ? alphabet[position + 1] : alphabet[(position + 1) % 64];
  return token.slice(0, index) + replacement + token.slice(index + 1);
}
