import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { emailKey } from '#contract';

import { migrate } from '../src/migrate.js';
import { createPgliteEngine } from '../src/pglite-engine.js';
import { seedDemoData } from '../src/seed-demo-data.js';
import { createFamilyId } from '../src/refresh-tokens.js';
import { createSqlRepository } from '../src/sql-repository.js';
import { createBareEngine } from './start-test-server.js';

describe('database', () => {
  it('migrates a fresh database once, even when two instances start at the same moment', async () => {
    const { engine, close } = await createBareEngine();
    try {
      const [first, second] = await Promise.all([migrate(engine), migrate(engine)]);
      assert.deepEqual([...first, ...second].sort(), [
        '001_initial.sql',
        '002_refresh_generation.sql',
        '003_email_key.sql',
        '003_email_key_rekey',
        '004_rate_limits.sql',
        '005_dpop.sql',
        '006_email_key_skeleton',
      ]);
      assert.deepEqual(await migrate(engine), []);
      const applied = await engine.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(applied, [
        { name: '001_initial.sql' },
        { name: '002_refresh_generation.sql' },
        { name: '003_email_key.sql' },
        { name: '003_email_key_rekey' },
        { name: '004_rate_limits.sql' },
        { name: '005_dpop.sql' },
        { name: '006_email_key_skeleton' },
      ]);
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

  for (const [window, others] of [
    [30, 'reissued'],
    [0, 'refused as reuse'],
  ] as const) {
    it(`rotates a family exactly once among 20 concurrent presentations of its live generation (window ${window} s: the others are ${others})`, async () => {
      const { engine, close } = await createBareEngine();
      try {
        await migrate(engine);
        const repository = createSqlRepository(engine);
        await seedDemoData(repository);
        const now = new Date();
        const familyId = createFamilyId();
        await repository.createRefreshFamily({
          familyId,
          username: 'ada',
          now,
          expiresAt: new Date(now.getTime() + 60_000),
        });

        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            repository.rotateRefreshToken({ familyId, generation: 0, now, reuseIntervalSeconds: window }),
          ),
        );

        const outcomes = results.map((result) => result.outcome);
        assert.equal(outcomes.filter((outcome) => outcome === 'rotated').length, 1);
        if (window > 0) {
          assert.equal(outcomes.filter((outcome) => outcome === 'reissued').length, 19);
        } else {
          // Whoever reads the family after the first reuse revoked it finds it revoked: invalid, 401 alike.
          assert.ok(outcomes.includes('reused'));
          assert.equal(outcomes.filter((outcome) => outcome === 'reused' || outcome === 'invalid').length, 19);
        }
        for (const result of results) {
          if (result.outcome === 'rotated' || result.outcome === 'reissued') assert.equal(result.generation, 1);
        }
        const family = await engine.query<{ generation: number; revoked_reason: string | null }>(
          'SELECT generation, revoked_reason FROM refresh_token_families WHERE id = $1',
          [familyId],
        );
        assert.deepEqual(family, [{ generation: 1, revoked_reason: window === 0 ? 'reuse' : null }]);
      } finally {
        await close();
      }
    });
  }

  it('upgrades a database of per-rotation tokens: the sessions stay as rows at generation 0, the token table goes', async () => {
    const { engine, close } = await createBareEngine();
    try {
      // The schema as it was before 002, with a session in it.
      const initial = await readFile(new URL('../migrations/001_initial.sql', import.meta.url), 'utf8');
      await engine.exec(initial);
      await engine.exec(
        `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
         INSERT INTO schema_migrations (name) VALUES ('001_initial.sql');
         INSERT INTO accounts (username, password_hash, role) VALUES ('ada', 'x', 'admin');
         INSERT INTO refresh_token_families (id, username, created_at, expires_at)
           VALUES ('old-family', 'ada', now(), now() + interval '1 day');
         INSERT INTO refresh_tokens (token_hash, family_id, created_at)
           VALUES ('${'0'.repeat(64)}', 'old-family', now());`,
      );

      assert.deepEqual(await migrate(engine), [
        '002_refresh_generation.sql',
        '003_email_key.sql',
        '003_email_key_rekey',
        '004_rate_limits.sql',
        '005_dpop.sql',
        '006_email_key_skeleton',
      ]);

      const families = await engine.query('SELECT id, generation, rotated_at FROM refresh_token_families');
      assert.deepEqual(families, [{ id: 'old-family', generation: 0, rotated_at: null }]);
      const tables = await engine.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'refresh_tokens'",
      );
      assert.deepEqual(tables, []);
    } finally {
      await close();
    }
  });

  it('upgrades the users to e-mail keys: one address in two Unicode forms stays two rows, later ones are refused', async () => {
    const { engine, close } = await createBareEngine();
    try {
      // The schema as it was before 003, with users whose addresses were unique by lower(email) only.
      for (const name of ['001_initial.sql', '002_refresh_generation.sql']) {
        await engine.exec(await readFile(new URL(`../migrations/${name}`, import.meta.url), 'utf8'));
      }
      await engine.exec(
        `CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
         INSERT INTO schema_migrations (name) VALUES ('001_initial.sql'), ('002_refresh_generation.sql');`,
      );
      // Pairs the old index (lower(email)) let in as two addresses, and one address SQL may key wrongly.
      const emails = [
        'jos\u00e9@example.com',
        'jose\u0301@example.com',
        'Ada@Example.com',
        '\u00c9MILE@example.com',
        'STRASSE@example.com',
        'stra\u00dfe@example.com',
        '\u03a3\u038a\u03a3\u03a5\u03a6\u039f\u03a3@example.com',
        '\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2@example.com',
        '\uff53\uff49\uff53\uff59@example.com',
        'sisy@example.com',
      ];
      for (const email of emails) await engine.query('INSERT INTO users (name, email) VALUES ($1, $2)', ['X', email]);
      const warnings: string[] = [];

      assert.deepEqual(await migrate(engine, { warn: (message) => warnings.push(message) }), [
        '003_email_key.sql',
        '003_email_key_rekey',
        '004_rate_limits.sql',
        '005_dpop.sql',
        '006_email_key_skeleton',
      ]);

      // Every key is the server's own (SQL's lower() knows no ß, no final sigma, nor É under a C collation), and
      // of two rows with one address the older keeps the key; the other stays, suffixed, and is named.
      const rows = await engine.query<{ id: number | string; email: string; email_key: string }>(
        'SELECT id, email, email_key FROM users ORDER BY id',
      );
      assert.deepEqual(
        rows.map(({ id, email_key }) => [Number(id), email_key]),
        [
          [1, emailKey('jos\u00e9@example.com')],
          [2, `${emailKey('jos\u00e9@example.com')}#2`],
          [3, emailKey('ada@example.com')],
          [4, emailKey('\u00e9mile@example.com')],
          [5, emailKey('strasse@example.com')],
          [6, `${emailKey('strasse@example.com')}#6`],
          [7, emailKey('\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2@example.com')],
          [8, `${emailKey('\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2@example.com')}#8`],
          [9, emailKey('sisy@example.com')],
          [10, `${emailKey('sisy@example.com')}#10`],
        ],
      );
      for (const { email, email_key } of rows) {
        assert.equal(email_key.replace(/#\d+$/, ''), emailKey(email));
      }
      assert.equal(warnings.length, 1);
      assert.match(
        warnings[0]!,
        /users 2 \(the address of 1\), 6 \(the address of 5\), 8 \(the address of 7\), 10 \(the address of 9\) share/,
      );
      assert.deepEqual(await migrate(engine), []);

      const repository = createSqlRepository(engine);
      for (const email of [
        'jose\u0301@EXAMPLE.com',
        'ADA@example.com',
        '\uff41\uff44\uff41@example.com',
        '\u00c9mile@example.com',
        'Stra\u00dfe@example.com',
        '\u03c3\u03af\u03c3\u03c5\u03c6\u03bf\u03c2@example.com',
        'SISY@example.com',
      ]) {
        await assert.rejects(repository.createUser({ name: 'X', email }), { name: 'EmailTakenError' }, email);
      }
    } finally {
      await close();
    }
  });

  it('re-keys the users to confusable skeletons (006): look-alikes of older rows stay, suffixed and named; new ones are refused', async () => {
    const { engine, close } = await createBareEngine();
    try {
      // A database as it was before 006: keyed by NFKC and case alone, so look-alikes got in.
      await migrate(engine);
      await engine.query("DELETE FROM schema_migrations WHERE name = '006_email_key_skeleton'");
      const emails = [
        'ada.lovelace@example.com',
        'ada.l\u0585velace@example.com', // Armenian օ
        '\u0251da.lovelace@example.com', // Latin alpha ɑ
        '\u1d00da.lovelace@example.com', // small capital ᴀ
        '\u13aada.lovelace@example.com', // Cherokee Ꭺ
        'coco@example.com',
        '\u0441\u043e\u0441\u043e@example.com', // wholly Cyrillic
        'ada.lovelace2@example.com',
      ];
      for (const email of emails) {
        const oldKey = email.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
        await engine.query('INSERT INTO users (name, email, email_key) VALUES ($1, $2, $3)', ['X', email, oldKey]);
      }
      const warnings: string[] = [];

      assert.deepEqual(await migrate(engine, { warn: (message) => warnings.push(message) }), [
        '006_email_key_skeleton',
      ]);

      const ada = emailKey('ada.lovelace@example.com');
      const coco = emailKey('coco@example.com');
      const rows = await engine.query<{ id: number | string; email_key: string }>(
        'SELECT id, email_key FROM users ORDER BY id',
      );
      assert.deepEqual(
        rows.map(({ id, email_key }) => [Number(id), email_key]),
        [
          [1, ada],
          [2, `${ada}#2`],
          [3, `${ada}#3`],
          [4, `${ada}#4`],
          [5, `${ada}#5`],
          [6, coco],
          [7, `${coco}#7`],
          [8, emailKey('ada.lovelace2@example.com')],
        ],
      );
      assert.deepEqual(warnings.length, 1);
      assert.match(
        warnings[0]!,
        /users 2 \(the address of 1\), 3 \(the address of 1\), 4 \(the address of 1\), 5 \(the address of 1\), 7 \(the address of 6\) share .* or looking like it/,
      );
      assert.deepEqual(await migrate(engine), []);

      const repository = createSqlRepository(engine);
      for (const email of [
        'ADA.LOVELACE@example.com',
        'ad\u0251.lovelace@example.com',
        '\u0441\u043e\u0441\u043e@example.com',
      ]) {
        await assert.rejects(repository.createUser({ name: 'X', email }), { name: 'EmailTakenError' }, email);
      }
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
