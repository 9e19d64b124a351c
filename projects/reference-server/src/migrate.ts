import { readFile, readdir } from 'node:fs/promises';

import { emailKey } from '#contract';

import type { SqlEngine, SqlExecutor } from './sql-engine.js';

/** The migrations folder, next to `src/` and `dist/`: the same files for both engines. */
const MIGRATIONS = new URL('../migrations/', import.meta.url);

/** An arbitrary constant: the advisory lock that makes concurrent instances migrate one at a time. */
const MIGRATION_LOCK = 7_261_544;

/**
 * Applies the migrations not applied yet, in name order, each in its own transaction, and records
 * them in `schema_migrations`: the `migrations/*.sql` files, and two steps in TypeScript
 * (`003_email_key_rekey` and `006_email_key_skeleton`, below). Several instances starting at once
 * against one PostgreSQL queue on an advisory lock, so each migration runs exactly once. Returns the
 * names it applied; `warn` gets what an operator should act on (by default, standard error).
 *
 * @example
 * await migrate(engine); // ['001_initial.sql'] on a fresh database, [] afterwards
 */
export async function migrate(
  engine: SqlEngine,
  options: { readonly warn?: (message: string) => void } = {},
): Promise<string[]> {
  const { warn = (message: string) => console.warn(message) } = options;
  const sqlFiles = (await readdir(MIGRATIONS)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name));
  const steps: { readonly name: string; readonly run: (tx: SqlExecutor) => Promise<void> }[] = [
    ...sqlFiles.map((name) => ({
      name,
      run: async (tx: SqlExecutor) => tx.exec(await readFile(new URL(name, MIGRATIONS), 'utf8')),
    })),
    { name: REKEY_EMAILS, run: (tx: SqlExecutor) => rekeyEmails(tx, warn) },
    { name: REKEY_SKELETONS, run: (tx: SqlExecutor) => rekeyEmails(tx, warn) },
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const applied: string[] = [];
  for (const { name, run } of steps) {
    const ran = await engine.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      // Under the lock: two sessions creating one table at once can collide even with IF NOT EXISTS.
      await tx.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (done.length > 0) return false;
      await run(tx);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      return true;
    });
    if (ran) applied.push(name);
  }
  return applied;
}

/**
 * The step after `003_email_key.sql` (the name sorts right after it): SQL could only approximate
 * the key of the rows it found (`lower()` folds what the database's collation knows, ASCII alone
 * under `C`, and no `ß`), so every row is keyed again with the server's own `emailKey`. The same
 * policy as 003 for rows that now share a key: the oldest keeps it, the others get `key#id` (no
 * address ends so), nobody's user is lost, and the ids are named in a warning for an operator to
 * merge. A database made after 003 has keys of the server's making already, and nothing changes.
 */
const REKEY_EMAILS = '003_email_key_rekey';

/**
 * The contract's `emailKey` became a confusable skeleton (UTS #39), so addresses that only look alike
 * (`ada@…` and an `ɑda@…` with a Latin alpha, or a wholly Cyrillic `сосо@…` next to `coco@…`) share a
 * key: every row is keyed again, with the same policy as above for the rows that now collide (named
 * in a warning unless an earlier step suffixed them already). A key change of the contract (new confusables data included) needs a step like this one, under a new name.
 */
const REKEY_SKELETONS = '006_email_key_skeleton';

/** Keys every user again with `emailKey`; rows that now share a key are kept, suffixed, and named in a warning. */
async function rekeyEmails(tx: SqlExecutor, warn: (message: string) => void): Promise<void> {
  const rows = await tx.query<{ id: number | string; email: string; email_key: string }>(
    'SELECT id, email, email_key FROM users ORDER BY id',
  );
  const owners = new Map<string, number>();
  const changes: { id: number; key: string }[] = [];
  const suffixed: string[] = [];
  for (const row of rows) {
    const id = Number(row.id);
    let key = emailKey(row.email);
    const owner = owners.get(key);
    if (owner === undefined) owners.set(key, id);
    else key = `${key}#${id}`;
    if (key === row.email_key) continue;
    changes.push({ id, key });
    // A row suffixed by an earlier step (003 on the same start, or 006 after it) was named then already.
    if (owner !== undefined) suffixed.push(`${id} (the address of ${owner})`);
  }
  // Out of the unique index's way first, so that two rows trading keys never collide midway.
  for (const { id } of changes) await tx.query("UPDATE users SET email_key = '#rekey#' || id WHERE id = $1", [id]);
  for (const { id, key } of changes) await tx.query('UPDATE users SET email_key = $2 WHERE id = $1', [id, key]);
  if (suffixed.length > 0) {
    warn(
      `reference-server: users ${suffixed.join(', ')} share an e-mail address with an older user, written in ` +
        'another Unicode form or case, or looking like it; they are kept, under the key "<key>#<id>", and ' +
        'cannot sign up again with it: merge or change them.',
    );
  }
}
