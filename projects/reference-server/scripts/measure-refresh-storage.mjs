// Measures what refresh-token sessions cost in the database, for the README's capacity section:
//
//   node projects/reference-server/scripts/measure-refresh-storage.mjs [sessions]
//
// On an embedded PGlite in memory, and also on PostgreSQL when DATABASE_URL is set (in a schema of its
// own, dropped at the end). "After" is today's schema (all migrations): one row per session, measured
// freshly inserted and again after every session rotated once and VACUUM ran (the steady state of a
// table whose rows are updated all the time). "Before" is the schema of 001_initial.sql, a row per
// rotation: its bytes per token row, times the ~670 rows a week-long session leaves behind.
import { randomBytes } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';

import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

const sessions = Number(process.argv[2] ?? 100_000);
const tokenRows = 100_000;
const migrations = new URL('../migrations/', import.meta.url);

/** Every migration's SQL, in file-name order (what src/migrate.ts applies). */
async function schemaSql(only) {
  const files = (await readdir(migrations)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name)).sort();
  const chosen = only ? files.filter((name) => name === only) : files;
  return Promise.all(chosen.map((name) => readFile(new URL(name, migrations), 'utf8')));
}

/** 16 random bytes, from core functions only (PGlite has no pgcrypto by default). */
const RANDOM_16 = `decode(replace(gen_random_uuid()::text, '-', ''), 'hex')`;
/** A family id as the server makes them: 16 random bytes, base64url (22 characters). */
const FAMILY_ID = `translate(encode(${RANDOM_16}, 'base64'), '+/=', '-_')`;

async function size(db, table) {
  return Number((await db.query(`SELECT pg_total_relation_size('${table}') AS bytes`))[0].bytes);
}

/** Today's schema: bytes per session, freshly inserted and in the steady state. */
async function measureAfter(db) {
  for (const sql of await schemaSql()) await db.exec(sql);
  await db.exec(`
    INSERT INTO accounts (username, password_hash, role) VALUES ('ada', 'x', 'admin');
    INSERT INTO refresh_token_families (id, username, created_at, expires_at, generation, rotated_at)
    SELECT ${FAMILY_ID}, 'ada', now(), now() + interval '7 days', 300, now()
    FROM generate_series(1, ${sessions});`);
  const fresh = await size(db, 'refresh_token_families');
  // Every rotation is an UPDATE, which leaves the old row version behind until VACUUM (autovacuum in
  // production) makes its space reusable: one round of it is the size the table settles at.
  await db.exec(`UPDATE refresh_token_families SET generation = generation + 1, rotated_at = now()`);
  await db.exec('VACUUM refresh_token_families');
  const steady = await size(db, 'refresh_token_families');
  return { fresh: fresh / sessions, steady: steady / sessions };
}

/** The schema of 001_initial.sql: bytes per token row (used tokens, as almost all of them are). */
async function measureBefore(db) {
  const [initial] = await schemaSql('001_initial.sql');
  await db.exec(initial);
  const families = Math.ceil(tokenRows / 670);
  await db.exec(`
    INSERT INTO accounts (username, password_hash, role) VALUES ('ada', 'x', 'admin');
    INSERT INTO refresh_token_families (id, username, created_at, expires_at)
    SELECT ${FAMILY_ID}, 'ada', now(), now() + interval '7 days' FROM generate_series(1, ${families});
    INSERT INTO refresh_tokens (token_hash, family_id, created_at, used_at)
    SELECT encode(sha256(${RANDOM_16}), 'hex'), f.id, now(), now()
    FROM generate_series(1, ${tokenRows}) AS n
    JOIN (SELECT id, row_number() OVER () AS k FROM refresh_token_families) AS f ON f.k = n % ${families} + 1;`);
  return { perToken: (await size(db, 'refresh_tokens')) / tokenRows };
}

function report(engine, { fresh, steady, perToken }) {
  const gb = (bytes) => `${(bytes / 1e9).toFixed(2)} GB`;
  console.log(`${engine}, ${sessions} sessions:`);
  console.log(
    `  one row per session: ${fresh.toFixed(0)} B/session fresh, ${steady.toFixed(0)} B after a rotation of each + VACUUM`,
  );
  console.log(`    per million sessions: ${gb(fresh * 1e6)} fresh, ${gb(steady * 1e6)} steady`);
  console.log(`  a row per rotation: ${perToken.toFixed(0)} B/token row (table and indexes)`);
  console.log(`    per million week-long sessions (670 rows each): ${gb(perToken * 670 * 1e6)}`);
}

/** Runs `work` on a fresh PGlite in memory. */
async function onPglite(work) {
  const db = await PGlite.create();
  try {
    return await work({ query: async (sql) => (await db.query(sql)).rows, exec: (sql) => db.exec(sql) });
  } finally {
    await db.close();
  }
}

/** Runs `work` in a fresh schema of the DATABASE_URL PostgreSQL, dropped afterwards. */
async function onPostgres(work) {
  const schema = `measure_refresh_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}`);
    return await work({ query: async (sql) => (await client.query(sql)).rows, exec: (sql) => client.query(sql) });
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

report('PGlite', { ...(await onPglite(measureAfter)), ...(await onPglite(measureBefore)) });
if (process.env.DATABASE_URL) {
  report('PostgreSQL', { ...(await onPostgres(measureAfter)), ...(await onPostgres(measureBefore)) });
}
