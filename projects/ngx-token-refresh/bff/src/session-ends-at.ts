import type { BffSession } from './bff-session';

/**
 * When `session` ends: at the end of its absolute lifetime or of its idle one, whichever comes first.
 * It is over at that very millisecond, as a cookie is at its expiry time (RFC 6265, section 5.3).
 */
export function sessionEndsAt(session: BffSession): number {
  return Math.min(session.createdAt + session.absoluteTimeout, session.lastSeenAt + session.idleTimeout);
}
