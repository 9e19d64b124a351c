import {
  type Account,
  EmailTakenError,
  type Repository,
  type Role,
  type RotationResult,
  type User,
  type UserFields,
} from './repository.js';
import { type SqlEngine, sqlState } from './sql-engine.js';

/** SQLSTATE of a unique violation: here, only `users_email_unique`. */
const UNIQUE_VIOLATION = '23505';
/** Advisory lock of the demo seed, so concurrent first starts seed once. */
const SEED_LOCK = 7_261_545;

interface UserRow {
  readonly id: number | string;
  readonly name: string;
  readonly email: string;
}

/**
 * The repository on a SQL engine (PGlite or PostgreSQL): every statement is parameterised, and the
 * refresh-token steps that must be atomic are single statements.
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

    async createRefreshFamily({ familyId, username, tokenHash, now, expiresAt }) {
      await engine.query(
        `WITH family AS (
           INSERT INTO refresh_token_families (id, username, created_at, expires_at) VALUES ($1, $2, $3, $4)
           RETURNING id
         )
         INSERT INTO refresh_tokens (token_hash, family_id, created_at) SELECT $5, id, $3 FROM family`,
        [familyId, username, now, expiresAt, tokenHash],
      );
    },

    async rotateRefreshToken(tokenHash, newTokenHash, now): Promise<RotationResult> {
      // One statement claims the token (only while unused, in a live family) and issues its
      // successor. Concurrent claims of one token serialise on its row: the first sets used_at, and
      // every other finds used_at set and claims nothing, so exactly one rotation wins.
      const rotated = await engine.query<{
        family_id: string;
        username: string;
        expires_at: Date;
        role: Role;
      }>(
        `WITH claimed AS (
           UPDATE refresh_tokens AS t SET used_at = $3
           FROM refresh_token_families AS f
           WHERE t.token_hash = $1 AND t.used_at IS NULL AND f.id = t.family_id
             AND f.revoked_at IS NULL AND f.expires_at > $3
           RETURNING t.family_id, f.username, f.expires_at
         ), issued AS (
           INSERT INTO refresh_tokens (token_hash, family_id, created_at) SELECT $2, family_id, $3 FROM claimed
         )
         SELECT c.family_id, c.username, c.expires_at, a.role
         FROM claimed AS c JOIN accounts AS a ON a.username = c.username`,
        [tokenHash, newTokenHash, now],
      );
      const row = rotated[0];
      if (row) {
        return {
          outcome: 'rotated',
          familyId: row.family_id,
          username: row.username,
          role: row.role,
          expiresAt: new Date(row.expires_at),
        };
      }
      // Not claimable. If it was used before, somebody presents a token that was already rotated:
      // the legitimate client or a thief, which the server cannot tell apart, so the whole family
      // goes (OAuth 2.0 Security BCP, RFC 9700 §4.14.2).
      const reused = await engine.query<{ id: string }>(
        `UPDATE refresh_token_families AS f
         SET revoked_at = COALESCE(f.revoked_at, $2), revoked_reason = COALESCE(f.revoked_reason, 'reuse')
         FROM refresh_tokens AS t
         WHERE t.token_hash = $1 AND t.used_at IS NOT NULL AND f.id = t.family_id
         RETURNING f.id`,
        [tokenHash, now],
      );
      const family = reused[0];
      return family ? { outcome: 'reused', familyId: family.id } : { outcome: 'invalid' };
    },

    async revokeRefreshFamily(familyId, now) {
      await engine.query(
        `UPDATE refresh_token_families
         SET revoked_at = COALESCE(revoked_at, $2), revoked_reason = COALESCE(revoked_reason, 'logout')
         WHERE id = $1`,
        [familyId, now],
      );
    },

    async findRefreshFamilyId(tokenHash) {
      const rows = await engine.query<{ family_id: string }>(
        'SELECT family_id FROM refresh_tokens WHERE token_hash = $1',
        [tokenHash],
      );
      return rows[0]?.family_id ?? null;
    },

    async deleteExpiredRefreshFamilies(now) {
      const rows = await engine.query('DELETE FROM refresh_token_families WHERE expires_at <= $1 RETURNING id', [now]);
      return rows.length;
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
        engine.query<UserRow>('INSERT INTO users (name, email) VALUES ($1, $2) RETURNING id, name, email', [
          name,
          email,
        ]),
      );
      return toUser(rows[0] as UserRow);
    },

    async updateUser(id, { name, email }) {
      // A merge in one statement: a field left out (null here) keeps its stored value.
      const rows = await writeUser(() =>
        engine.query<UserRow>(
          `UPDATE users SET name = COALESCE($2, name), email = COALESCE($3, email), updated_at = now()
           WHERE id = $1 RETURNING id, name, email`,
          [id, name ?? null, email ?? null],
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
          await tx.query('INSERT INTO users (name, email) VALUES ($1, $2)', [user.name, user.email]);
        }
        return true;
      });
    },

    close: () => engine.close(),
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
