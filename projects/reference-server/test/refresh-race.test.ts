import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';

import { decodeJwt } from 'jose';

import type { Repository } from '../src/repository.js';
import {
  type Session,
  type TestDatabase,
  type TestServer,
  login,
  readCookie,
  refreshWithCookie,
  startTestServer,
} from './start-test-server.js';

// Several clients of one session without a cross-tab lock (another app, the showcase with
// ?crossTab=off, a browser without Web Locks), as in issue 24: they share one cookie jar, start their
// refreshes a few milliseconds apart, each with whatever token the jar holds at that moment, and each
// answer overwrites the jar when it arrives. The first request is slow (150 ms before the server
// decides), so the ones after it find and use the token it rotated to. Every one must get 200, and the
// session must go on (a refresh with the jar's token afterwards works).

/** How long the first refresh of a race takes before the server decides on it. */
const SLOW_FIRST_MS = 150;
/** Between the starts of two clients. */
const STAGGER_MS = 10;

/** The repository, with the first rotation of every family held back by {@link SLOW_FIRST_MS}. */
function slowFirstRotation(repository: Repository): Repository {
  const seen = new Set<string>();
  return {
    ...repository,
    async rotateRefreshToken(presented) {
      if (!seen.has(presented.familyId)) {
        seen.add(presented.familyId);
        await sleep(SLOW_FIRST_MS);
      }
      return repository.rotateRefreshToken(presented);
    },
  };
}

/**
 * Runs `clients` refreshes of one fresh session over `targets` (client i on `targets[i % length]`, the
 * first one slow), started {@link STAGGER_MS} apart with one shared cookie jar; returns the statuses
 * and the jar's token at the end.
 */
async function race(
  targets: readonly TestServer[],
  session: Session,
  clients: number,
): Promise<{ statuses: number[]; jar: string }> {
  let jar = session.refreshToken;
  const statuses = await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      await sleep(index * STAGGER_MS);
      const response = await refreshWithCookie(targets[index % targets.length] as TestServer, jar);
      const cookie = readCookie(response, '__Secure-refreshToken');
      // As a browser does: whatever Set-Cookie arrives last is what the jar holds (a cleared cookie too).
      if (cookie !== null) jar = cookie;
      await response.arrayBuffer();
      return response.status;
    }),
  );
  return { statuses, jar };
}

async function familyRow(
  database: TestDatabase,
  session: Session,
): Promise<{ generation: number; revoked_reason: string | null }> {
  const rows = await database.engine.query<{ generation: number; revoked_reason: string | null }>(
    'SELECT generation, revoked_reason FROM refresh_token_families WHERE id = $1',
    [decodeJwt(session.accessToken)['sid']],
  );
  return rows[0] as { generation: number; revoked_reason: string | null };
}

describe('clients of one session refreshing a few ms apart without a cross-tab lock, the first one slow (issue 24)', () => {
  let base: TestServer;
  before(async () => {
    base = await startTestServer();
  });
  after(() => base.close());

  async function check(targets: readonly TestServer[], clients: number): Promise<void> {
    for (let trial = 0; trial < 3; trial++) {
      const session = await login(targets[0] as TestServer);

      const { statuses, jar } = await race(targets, session, clients);

      assert.deepEqual(
        statuses,
        Array.from({ length: clients }, () => 200),
        `trial ${trial}`,
      );
      assert.deepEqual(await familyRow(base.database, session), { generation: 1, revoked_reason: null });
      const followUp = await refreshWithCookie(targets[0] as TestServer, jar);
      assert.equal(followUp.status, 200);
      assert.deepEqual(await familyRow(base.database, session), { generation: 1, revoked_reason: null });
    }
  }

  for (const clients of [3, 5, 10]) {
    it(`all ${clients} get 200 and the session goes on, on one instance`, async () => {
      const server = await startTestServer({ database: base.database, wrapRepository: slowFirstRotation });
      try {
        await check([server], clients);
      } finally {
        await server.close();
      }
    });

    it(
      `all ${clients} get 200 and the session goes on, split between two instances sharing one PostgreSQL database (skipped on PGlite, one process)`,
      { skip: process.env['DATABASE_URL'] ? false : 'PGlite runs in one process: no second instance' },
      async () => {
        const twinDatabase = await base.database.connectAgain();
        const first = await startTestServer({ database: base.database, wrapRepository: slowFirstRotation });
        const twin = await startTestServer({ database: twinDatabase });
        try {
          await check([first, twin], clients);
        } finally {
          await twin.close();
          await first.close();
          await twinDatabase.close();
        }
      },
    );
  }
});
