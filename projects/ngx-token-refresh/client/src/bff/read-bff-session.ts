import type { BffUser } from './bff-session-ref';

/**
 * What this library keeps of the BFF's answer to `GET <basePath>/session`: the user's claims, and
 * the session's absolute end (`expiresAt`), which tells this session from a later sign-in's.
 * Nothing else of the answer is kept, so nothing else can reach a server render's transfer state.
 */
export interface BffSessionSnapshot {
  readonly user: BffUser;
  readonly expiresAt: number | string | null;
}

/**
 * The session in `body` (`{ user: { sub, ...claims }, expiresAt, idleExpiresAt }`), or `null` when it
 * is not one: no object, no `user` object, no `sub` text.
 */
export function readBffSession(body: unknown): BffSessionSnapshot | null {
  if (!isRecord(body)) return null;
  const { user, expiresAt } = body;
  if (!isRecord(user) || typeof user['sub'] !== 'string' || user['sub'] === '') return null;
  return {
    user: user as BffUser,
    expiresAt: typeof expiresAt === 'number' || typeof expiresAt === 'string' ? expiresAt : null,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
