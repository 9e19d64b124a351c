import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { migrate } from '../src/migrate.js';
import { createPgliteEngine } from '../src/pglite-engine.js';
import type { SqlEngine } from '../src/sql-engine.js';

// A new PGlite database starts as a copy of a template (initdb's data folder, kept as a tar file)
// instead of running initdb: each test here keeps its templates in a folder of its own.

describe('PGlite template', () => {
  let folder: string;
  /** A template made by the first start, and its bytes. */
  let templateFile: string;
  let template: Buffer;

  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'pglite-template-'));
    templateFile = join(folder, 'template.tar');
    const engine = await createPgliteEngine(null, { templateFile });
    try {
      await works(engine);
    } finally {
      await engine.close();
    }
    template = await readFile(templateFile);
  });

  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('is made by the first start, then used as it is by the next ones, in memory and in new data folders', async () => {
    assert.ok(template.length > 1_000_000, `a template of ${template.length} bytes`);
    const made = await stat(templateFile);

    const inMemory = await createPgliteEngine(null, { templateFile });
    try {
      await works(inMemory);
      // PGlite's settings still apply (written into postgresql.conf on every start).
      assert.deepEqual(await inMemory.query("SELECT current_setting('shared_buffers') AS value"), [{ value: '16MB' }]);
    } finally {
      await inMemory.close();
    }

    const dataDir = join(folder, 'data');
    const first = await createPgliteEngine(dataDir, { templateFile });
    try {
      await works(first);
      await first.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('across restarts')");
    } finally {
      await first.close();
    }
    const second = await createPgliteEngine(dataDir, { templateFile });
    try {
      assert.deepEqual(await migrate(second), []);
      assert.deepEqual(await second.query('SELECT note FROM kept'), [{ note: 'across restarts' }]);
    } finally {
      await second.close();
    }

    const kept = await stat(templateFile);
    assert.equal(kept.mtimeMs, made.mtimeMs, 'the template was not made again');
    assert.equal(kept.ino, made.ino);
  });

  it('makes a missing data folder owner-only, as initdb does, so other users of the machine cannot look inside', async () => {
    const dataDir = join(folder, 'private');
    const engine = await createPgliteEngine(dataDir, { templateFile });
    await engine.close();
    assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
  });

  it('makes a damaged template again, and the database starts all the same', async () => {
    const file = join(folder, 'damaged.tar');
    await writeFile(file, template.subarray(0, template.length / 2));
    const engine = await createPgliteEngine(join(folder, 'after-damage'), { templateFile: file });
    try {
      await works(engine);
    } finally {
      await engine.close();
    }
    assert.equal((await readFile(file)).length, template.length, 'a whole template again');
  });

  it('forgets a template PostgreSQL does not start from, and starts the database as PGlite would', async () => {
    // A readable tar file whose PG_VERSION names a PostgreSQL this PGlite is not.
    const wrongVersion = Buffer.from(template);
    const at = findFile(wrongVersion, 'PG_VERSION');
    wrongVersion.write('99', at);
    const file = join(folder, 'wrong-version.tar');
    await writeFile(file, wrongVersion);
    const dataDir = join(folder, 'wrong-version-data');
    const engine = await createPgliteEngine(dataDir, { templateFile: file });
    try {
      await works(engine);
      assert.notEqual((await readFile(join(dataDir, 'PG_VERSION'), 'utf8')).trim(), '99');
    } finally {
      await engine.close();
    }
    await assert.rejects(stat(file), { code: 'ENOENT' });
  });

  it('runs initdb for every new database without a template (templateFile null)', async () => {
    const engine = await createPgliteEngine(null, { templateFile: null });
    try {
      await works(engine);
    } finally {
      await engine.close();
    }
  });
});

/** The schema migrates and a query answers. */
async function works(engine: SqlEngine): Promise<void> {
  const applied = await migrate(engine);
  assert.ok(applied.includes('001_initial.sql'), `applied ${applied.join(', ')}`);
  assert.deepEqual(await engine.query('SELECT count(*)::int AS accounts FROM accounts'), [{ accounts: 0 }]);
}

/** Where the bytes of the top-level file `name` start in a tar file. */
function findFile(tar: Buffer, name: string): number {
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512);
    const path = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    if (path.replace(/^\/+/, '') === name) return offset + 512;
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`no ${name} in the tar file`);
}
