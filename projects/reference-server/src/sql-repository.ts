import { emailKey } from '#contract';

import {
  type Account,
  EmailTakenError,
  type LiveRefreshFamily,
  provesKey,
  type Repository,
  type Role,
  type RotationResult,
  type User,
  type UserFields,
} from './repository.js';
import { type SqlEngine, sqlState } from './sql-engine.js';

/** SQLSTATE of a unique violation: here, only `users_email_key_unique`. */
const UNIQUE_VIOLATION = '23505';
/** PostgreSQL's largest `integer`: counters stop there instead of overflowing. */
const MAX_INTEGER = 2_147_483_647;
/** Advisory lock of the demo seed, so concurrent first starts seed once. */
const SEED_LOCK = 7_261_545;

/** A family joined with its account's role. */
interface LiveFamilyRow {
  readonly id: string;
  readonly generation: number;
  readonly username: string;
  readonly expires_at: Date;
  readonly jkt: string | null;
  readonly role: Role;
}

/** The same, with what the decision after a failed rotation needs. */
interface FamilyRow extends LiveFamilyRow {
  readonly rotated_at: Date | null;
  readonly revoked_at: Date | null;
}

interface UserRow {
  readonly id: number | string;
  readonly name: string;
  readonly email: string;
}

/**
 * The repository on a SQL engine (PGlite or PostgreSQL): every statement is parameterised, and the
 * refresh-token steps that must be atomic are single conditional statements (no transactions).
 *
 * @example
 * const repository = createSqlRepository(await createPgliteEngine(null));
 */
export function createSqlRepository(engine: SqlEngine): Repository {
  return {
    async findAccount(username) {
      const rows = await engine.query<{ username: string; password_hash: string; role: Role }>(
        'SELECT username, password_hash, role FROM accounts WHERE username = $1',
        [username],
      );
      const row = rows[0];
      return row ? { username: row.username, passwordHash: row.password_hash, role: row.role } : null;
    },

    async createRefreshFamily({ familyId, username, now, expiresAt, jkt = null }) {
      await engine.query(
        'INSERT INTO refresh_token_families (id, username, created_at, expires_at, jkt) VALUES ($1, $2, $3, $4, $5)',
        [familyId, username, now, expiresAt, jkt],
      );
    },

    async rotateRefreshToken({ familyId, generation, now, reuseIntervalSeconds, key = null }): Promise<RotationResult> {
      // The common case in one round trip and without a transaction: the presented token is the live
      // one, and one conditional UPDATE moves the family on. At most one rotation per window: a live
      // token that was itself reached less than `reuseIntervalSeconds` ago is not rotated again (the
      // read below answers it with itself), so within any window the tokens in use are the live one and
      // its immediate predecessor, both of which the window accepts, and a token two generations old
      // was replaced more than a window ago. The login's token (`rotated_at` null) rotates at once, and
      // with a window of 0 every live token does (strict single use).
      // Concurrent presentations of one token serialise on the family's row: PostgreSQL makes a waiting
      // UPDATE re-check its WHERE against the row the first one committed (READ COMMITTED), where
      // `generation = $2` no longer holds, so exactly one of them rotates and the others update nothing
      // and fall through to the read below, where they find the predecessor within the window: all
      // answer 200 with one and the same token. PGlite runs one statement at a time, which gives the
      // same result.
      // With DPoP on, the family must also be bound to the key the refresh proved (or to none, when
      // no key is required): a refresh with another key, or without one, rotates nothing.
      const windowStart = reuseIntervalSeconds > 0 ? new Date(now.getTime() - reuseIntervalSeconds * 1000) : null;
      const rotated = await engine.query<LiveFamilyRow>(
        `WITH rotated AS (
           UPDATE refresh_token_families SET generation = generation + 1, rotated_at = $3
           WHERE id = $1 AND generation = $2 AND revoked_at IS NULL AND expires_at > $3
             AND ($4::timestamptz IS NULL OR rotated_at IS NULL OR rotated_at <= $4::timestamptz)
             ${key ? 'AND (jkt = $5::text OR (jkt IS NULL AND NOT $6::boolean))' : ''}
           RETURNING id, generation, username, expires_at, jkt
         )
         SELECT r.id, r.generation, r.username, r.expires_at, r.jkt, a.role
         FROM rotated AS r JOIN accounts AS a ON a.username = r.username`,
        key
          ? [familyId, generation, now, windowStart, key.jkt, key.requireBound]
          : [familyId, generation, now, windowStart],
      );
      if (rotated[0]) return { outcome: 'rotated', ...toLiveFamily(rotated[0]) };

      // Not rotated: read the family and decide. Nothing here needs a lock, because what the decision
      // rests on only ever moves one way: the generation only grows and the window only passes,
      // revocation and expiry are final.
      const rows = await engine.query<FamilyRow>(
        `SELECT f.id, f.generation, f.username, f.expires_at, f.rotated_at, f.revoked_at, f.jkt, a.role
         FROM refresh_token_families AS f JOIN accounts AS a ON a.username = f.username
         WHERE f.id = $1`,
        [familyId],
      );
      const family = rows[0];
      // Unknown, ended, or a generation the family has not reached (no such token was ever handed
      // out; without the key nobody can make one).
      if (!family || family.revoked_at !== null || new Date(family.expires_at) <= now) return { outcome: 'invalid' };
      const live = Number(family.generation);
      if (generation > live) return { outcome: 'invalid' };
      // A genuine token without its key: refused before the reuse decision, so that a copy of the token
      // alone (stolen, but without the key that never leaves the client) can neither take the live
      // token nor end the session by counting as reuse.
      if (key && !provesKey(family.jkt, key)) return { outcome: 'keyMismatch', familyId };

      // Within the window of the live token's rotation: the live token itself (another tab that already
      // has it, while the window holds rotation back) or its immediate predecessor (another tab's
      // refresh already on the wire, a retry after an answer that got lost). Answer with the live token,
      // changing nothing: the window never extends itself, so it closes `reuseIntervalSeconds` after the
      // rotation whatever happens. This answer may be a millisecond stale when a rotation commits
      // meanwhile; that is harmless, it hands out what was live when read, whose presentation is then
      // again the predecessor's case. A window of 0 is strict single use (checked explicitly: with
      // clocks of several instances, this request's `now` may lie before the rotation that overtook it).
      const rotatedAt = family.rotated_at === null ? null : new Date(family.rotated_at);
      const withinWindow =
        reuseIntervalSeconds > 0 &&
        rotatedAt !== null &&
        now.getTime() < rotatedAt.getTime() + reuseIntervalSeconds * 1000;
      if (withinWindow && (generation === live || generation === live - 1)) {
        return { outcome: 'reissued', ...toLiveFamily(family) };
      }
      // The live token that the UPDATE did not rotate although its window is over: only a rotation
      // that committed between the UPDATE and the read can make that look so, and then the generation
      // read would be higher. Refused without revoking anything.
      if (generation === live) return { outcome: 'invalid' };

      // Older than the predecessor (replaced more than a window ago: rotations are a window apart), or
      // the predecessor after the window: two parties hold this family's tokens, the legitimate client
      // and someone else, and the server cannot tell which one is asking, so the whole family goes
      // (OAuth 2.0 Security BCP, RFC 9700 §4.14.2). The decision cannot become wrong under concurrent
      // changes (see above), and the conditional UPDATE keeps the first reason when something else (a
      // logout, another reuse) revoked the family meanwhile.
      await engine.query(
        `UPDATE refresh_token_families SET revoked_at = $3, revoked_reason = 'reuse'
         WHERE id = $1 AND revoked_at IS NULL AND generation > $2`,
        [familyId, generation, now],
      );
      return { outcome: 'reused', familyId };
    },

    async findRefreshFamilyKey(familyId) {
      const rows = await engine.query<{ jkt: string | null }>('SELECT jkt FROM refresh_token_families WHERE id = $1', [
        familyId,
      ]);
      return rows[0] ? { jkt: rows[0].jkt ?? null } : null;
    },

    async revokeRefreshFamily(familyId, now) {
      await engine.query(
        `UPDATE refresh_token_families
         SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, 'logout')
         WHERE id = $1`,
        [familyId, now],
      );
    },

    async deleteExpiredRefreshFamilies(now) {
      const rows = await engine.query('DELETE FROM refresh_token_families WHERE expires_at <= $1 RETURNING id', [now]);
      return rows.length;
    },

    async recordDpopProof(key, expiresAt) {
      // One statement: of two instances recording one proof at once, the second waits on the first's
      // row and then inserts nothing.
      const rows = await engine.query(
        'INSERT INTO dpop_proofs (key, expires_at) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING 1',
        [key, expiresAt],
      );
      return rows.length > 0;
    },

    async deleteExpiredDpopProofs(now) {
      await engine.query('DELETE FROM dpop_proofs WHERE expires_at <= $1', [now]);
    },

    async countHit(key, now, windowMs) {
      // One statement, so instances counting the same key at once serialise on its row.
      const rows = await engine.query<{ hits: number; ends_at: Date }>(
        `INSERT INTO rate_limit_windows AS w (key, hits, ends_at) VALUES ($1, 1, $3)
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN w.ends_at <= $2 THEN 1 ELSE LEAST(w.hits + 1, ${MAX_INTEGER}) END,
           ends_at = CASE WHEN w.ends_at <= $2 THEN EXCLUDED.ends_at ELSE w.ends_at END
         RETURNING hits, ends_at`,
        [key, now, new Date(now.getTime() + windowMs)],
      );
      const row = rows[0] as { hits: number; ends_at: Date };
      return { hits: Number(row.hits), endsAt: new Date(row.ends_at) };
    },

    async reserveLoginAttempt(key, now, { freeAttempts, maxDelaySeconds, forgetAfterSeconds }) {
      // The attempt's number: 1 after a day of quiet, else one more than the last. The first
      // `freeAttempts` follow each other at once; after the n-th (n ≥ freeAttempts) the next waits
      // 2^(n - freeAttempts) s, up to the cap. The WHERE refuses an attempt inside the delay without
      // counting it, so waiting out the delay is all a client can do, and a blocked attempt never
      // lengthens it: the delay grows with the guesses actually checked, not with the requests.
      const attempt = `CASE WHEN a.last_attempt_at <= $3 THEN 1 ELSE LEAST(a.attempts + 1, ${MAX_INTEGER}) END`;
      // A free attempt blocks nothing: its `blocked_until` is the epoch, not `now`, or a concurrent
      // attempt that read the clock a moment earlier but reached the database later (a double click)
      // would find itself inside a delay that does not exist.
      const blockedUntil = (n: string) =>
        `CASE WHEN ${n} < $4::integer THEN 'epoch'::timestamptz
           ELSE $2::timestamptz + make_interval(secs => LEAST($5::double precision, power(2, LEAST(${n} - $4::integer, 40))))
         END`;
      const rows = await engine.query<{ attempts: number }>(
        `INSERT INTO login_attempts AS a (key, attempts, blocked_until, last_attempt_at)
         VALUES ($1, 1, ${blockedUntil('1')}, $2)
         ON CONFLICT (key) DO UPDATE SET
           attempts = ${attempt},
           blocked_until = ${blockedUntil(attempt)},
           last_attempt_at = $2
         WHERE a.blocked_until <= $2
         RETURNING attempts`,
        [key, now, new Date(now.getTime() - forgetAfterSeconds * 1000), freeAttempts, maxDelaySeconds],
      );
      if (rows.length > 0) return { allowed: true };
      const blocked = await engine.query<{ blocked_until: Date }>(
        'SELECT blocked_until FROM login_attempts WHERE key = $1',
        [key],
      );
      // Gone meanwhile (a success cleared it): the client may come straight back.
      const retryAt = blocked[0] ? new Date(blocked[0].blocked_until) : now;
      return { allowed: false, retryAt };
    },

    async clearLoginAttempts(key) {
      await engine.query('DELETE FROM login_attempts WHERE key = $1', [key]);
    },

    async deleteExpiredLimits(now, attemptsForgottenBefore) {
      await engine.query('DELETE FROM rate_limit_windows WHERE ends_at <= $1', [now]);
      await engine.query('DELETE FROM login_attempts WHERE last_attempt_at <= $1 AND blocked_until <= $2', [
        attemptsForgottenBefore,
        now,
      ]);
    },

    async listUsers(page) {
      const rows = page
        ? await engine.query<UserRow>('SELECT id, name, email FROM users ORDER BY id LIMIT $1 OFFSET $2', [
            page.limit,
            page.offset,
          ])
        : await engine.query<UserRow>('SELECT id, name, email FROM users ORDER BY id');
      return rows.map(toUser);
    },

    async countUsers() {
      const rows = await engine.query<{ count: number | string }>('SELECT count(*) AS count FROM users');
      return Number(rows[0]?.count ?? 0);
    },

    async getUser(id) {
      const rows = await engine.query<UserRow>('SELECT id, name, email FROM users WHERE id = $1', [id]);
      return rows[0] ? toUser(rows[0]) : null;
    },

    async createUser({ name, email }) {
      const rows = await writeUser(() =>
        engine.query<UserRow>(
          'INSERT INTO users (name, email, email_key) VALUES ($1, $2, $3) RETURNING id, name, email',
          [name, email, emailKey(email)],
        ),
      );
      return toUser(rows[0] as UserRow);
    },

    async updateUser(id, { name, email }) {
      // A merge in one statement: a field left out (null here) keeps its stored value.
      const rows = await writeUser(() =>
        engine.query<UserRow>(
          `UPDATE users
           SET name = COALESCE($2, name), email = COALESCE($3, email), email_key = COALESCE($4, email_key),
             updated_at = now()
           WHERE id = $1 RETURNING id, name, email`,
          [id, name ?? null, email ?? null, email === undefined ? null : emailKey(email)],
        ),
      );
      return rows[0] ? toUser(rows[0]) : null;
    },

    async deleteUser(id) {
      const rows = await engine.query('DELETE FROM users WHERE id = $1 RETURNING id', [id]);
      return rows.length > 0;
    },

    async seed(accounts: readonly Account[], users: readonly UserFields[]) {
      return engine.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
        const existing = await tx.query('SELECT 1 FROM accounts LIMIT 1');
        if (existing.length > 0) return false;
        for (const account of accounts) {
          await tx.query('INSERT INTO accounts (username, password_hash, role) VALUES ($1, $2, $3)', [
            account.username,
            account.passwordHash,
            account.role,
          ]);
        }
        // One at a time, in order, so a fresh database numbers them 1, 2, 3, ...
        for (const user of users) {
          await tx.query('INSERT INTO users (name, email, email_key) VALUES ($1, $2, $3)', [
            user.name,
            user.email,
            emailKey(user.email),
          ]);
        }
        return true;
      });
    },

    close: () => engine.close(),
  };
}

function toLiveFamily(row: LiveFamilyRow): LiveRefreshFamily {
  return {
    familyId: row.id,
    generation: Number(row.generation),
    username: row.username,
    role: row.role,
    expiresAt: new Date(row.expires_at),
    jkt: row.jkt ?? null,
  };
}

/** `pg` returns bigint as a string, PGlite as a number: the API's ids are numbers. */
function toUser(row: UserRow): User {
  return { id: Number(row.id), name: row.name, email: row.email };
}

async function writeUser<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (sqlState(error) === UNIQUE_VIOLATION) throw new EmailTakenError();
    throw error;
  }
}
