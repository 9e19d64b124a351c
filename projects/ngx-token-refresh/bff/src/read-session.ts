import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { revokeTokens } from './revoke-tokens';
import { SESSION_COOKIE, readCookie } from './session-cookie';
import { sessionKey } from './session-key';

/** What the session cookie of a request leads to; see {@link readSession}. */
export type SessionLookup =
  /** A live session, read at `now` (its `lastSeenAt` is `now` when this use was recorded). */
  | { readonly kind: 'session'; readonly session: BffSession; readonly now: number }
  /** No session cookie: never signed in, or signed out and the cookie cleared (401 `NoSession`). */
  | { readonly kind: 'none' }
  /** A cookie whose session is over (401 `SessionEnded`, and the cookie is cleared). */
  | { readonly kind: 'ended' };

/** A session id as the BFF makes them: 43 characters of base64url. Anything else never was one. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The session of `request`'s cookie, judged at this moment: the store reads no session past its idle
 * or absolute lifetime. A session past them is also deleted and its refresh token revoked, in the
 * background, so the grant at the provider ends with it; a session without a refresh token ends with
 * its access token. A use restarts the idle lifetime, written at most once per
 * `min(60 s, idleTimeout / 10)`: idle expiry need not be exact to the second, and a write per request
 * would cost every instance a database round trip.
 */
export async function readSession(context: BffContext, request: Request): Promise<SessionLookup> {
  const id = readCookie(request, SESSION_COOKIE);
  if (id === null) return { kind: 'none' };
  if (!SESSION_ID.test(id)) return { kind: 'ended' };
  const { store } = context.options;
  const key = await sessionKey(id);
  const now = Date.now();
  const session = await store.read(key, now);
  if (session === null) {
    // A burst of requests of one expired session ends it once on this instance.
    context.background(() => endExpired(context, key), `end ${key}`);
    return { kind: 'ended' };
  }
  if (session.refreshToken === null && now >= session.accessTokenExpiresAt) {
    await store.delete(key);
    context.dpopHandles.forget(key);
    return { kind: 'ended' };
  }
  if (now - session.lastSeenAt < Math.min(60_000, session.idleTimeout / 10)) return { kind: 'session', session, now };
  context.background(() => store.touch(key, now));
  return { kind: 'session', session: { ...session, lastSeenAt: now }, now };
}

/**
 * Deletes a session found past its lifetimes, and revokes its tokens. The store reads no session at
 * this moment, but the record is still there until deleted: read as of the epoch, when no lifetime
 * had ended. A session that is gone (signed out, deleted by another instance) needs nothing.
 */
async function endExpired(context: BffContext, key: string): Promise<void> {
  const { store } = context.options;
  const expired = await store.read(key, 0);
  context.dpopHandles.forget(key);
  if (expired === null) return;
  await store.delete(key);
  await revokeTokens(context, expired);
}
