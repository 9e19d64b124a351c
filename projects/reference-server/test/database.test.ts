import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { migrate } from '../src/migrate.js';
import { createPgliteEngine } from '../src/pglite-engine.js';
import { seedDemoData } from '../src/seed-demo-data.js';
import { createRefreshToken, hashRefreshToken } from '../src/refresh-token.js';
import { createSqlRepository } from '../src/sql-repository.js';
import { createBareEngine } from './start-test-server.js';

describe('database', () => {
  it('migrates a fresh database once, even when two instances start at the same moment', async () => {
    const { engine, close } = await createBareEngine();
    try {
      const [first, second] = await Promise.all([migrate(engine), migrate(engine)]);
      assert.deepEqual([...first, ...second], ['001_initial.sql']);
      assert.deepEqual(await migrate(engine), []);
      const applied = await engine.query<{ name: string }>('SELECT name FROM schema_migrations');
      assert.deepEqual(applied, [{ name: '001_initial.sql' }]);
    } finally {
      await close();
    }
  });

  it('seeds the demo data on the first start only, once under concurrency', async () => {
    const { engine, close } = await createBareEngine();
    try {
      await migrate(engine);
      const repository = createSqlRepository(engine);
      const seeded = await Promise.all([seedDemoData(repository), seedDemoData(repository)]);
      assert.deepEqual(seeded.sort(), [false, true]);
      assert.equal(await seedDemoData(repository), false);
      assert.equal(await repository.countUsers(), 42);
      const users = await repository.listUsers({ offset: 0, limit: 2 });
      assert.deepEqual(users, [
        { id: 1, name: 'Ada Lovelace', email: 'ada.lovelace@example.com' },
        { id: 2, name: 'Alan Turing', email: 'alan.turing@example.com' },
      ]);
      const accounts = await engine.query<{ username: string; role: string; password_hash: string }>(
        'SELECT username, role, password_hash FROM accounts ORDER BY username',
      );
      assert.deepEqual(
        accounts.map(({ username, role }) => [username, role]),
        [
          ['ada', 'admin'],
          ['alan', 'viewer'],
        ],
      );
      for (const { password_hash } of accounts) assert.match(password_hash, /^scrypt\$16384\$8\$1\$/);
    } finally {
      await close();
    }
  });

  it('rotates a refresh token exactly once among 20 concurrent attempts (one atomic claim)', async () => {
    const { engine, close } = await createBareEngine();
    try {
      await migrate(engine);
      const repository = createSqlRepository(engine);
      await seedDemoData(repository);
      const now = new Date();
      const token = hashRefreshToken(createRefreshToken());
      await repository.createRefreshFamily({
        familyId: 'family',
        username: 'ada',
        tokenHash: token,
        now,
        expiresAt: new Date(now.getTime() + 60_000),
      });

      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          repository.rotateRefreshToken(token, hashRefreshToken(createRefreshToken()), now),
        ),
      );

      const outcomes = results.map((result) => result.outcome).sort();
      assert.equal(outcomes.filter((outcome) => outcome === 'rotated').length, 1);
      assert.equal(outcomes.filter((outcome) => outcome === 'reused').length, 19);
      const live = await engine.query('SELECT 1 FROM refresh_tokens WHERE family_id = $1', ['family']);
      assert.equal(live.length, 2);
    } finally {
      await close();
    }
  });

  it('keeps the data of a PGlite data folder across restarts', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'reference-server-'));
    try {
      const first = await createPgliteEngine(folder);
      await migrate(first);
      const repository = createSqlRepository(first);
      await seedDemoData(repository);
      const created = await repository.createUser({ name: 'Persisted', email: 'persisted@example.com' });
      await first.close();

      const second = await createPgliteEngine(folder);
      try {
        assert.deepEqual(await migrate(second), []);
        const reopened = createSqlRepository(second);
        assert.equal(await seedDemoData(reopened), false);
        assert.deepEqual(await reopened.getUser(created.id), created);
      } finally {
        await second.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
