import type { BffSession } from './bff-session';

/** The most a token is refreshed ahead of its expiry. */
const MAX_MARGIN = 30_000;

/**
 * Whether `session`'s access token is expired or about to at `now`: within a quarter of its lifetime
 * of its expiry, at most 30 s (the rule of the interceptor's `withProactiveRefresh`). A request then
 * refreshes before it calls the API, instead of learning it from a 401 and calling twice; the margin
 * also covers the time the call takes and a provider's clock a little ahead of ours.
 */
export function needsRefresh(session: BffSession, now: number): boolean {
  const lifetime = session.accessTokenExpiresAt - session.accessTokenIssuedAt;
  return session.accessTokenExpiresAt - now <= Math.min(MAX_MARGIN, lifetime / 4);
}
