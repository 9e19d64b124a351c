import type { BffContext } from './bff-context';
import { checkCsrf } from './check-csrf';
import { json } from './json-error';
import { readSession } from './read-session';
import { unusableSession } from './unusable-session';

/**
 * `GET <basePath>/session`: who is signed in, for the page and for server renders:
 * `{ user: { sub, ...claims }, expiresAt, idleExpiresAt }` (times in ms since the epoch: the absolute
 * end, and the idle end as the store has it). The claims are those of `userClaims` from the ID
 * token; no token is ever in it. 401 `NoSession` or `SessionEnded` otherwise.
 */
export async function sessionInfo(context: BffContext, request: Request): Promise<Response> {
  const refused = checkCsrf(request, context.options.origin);
  if (refused !== null) return refused;
  const lookup = await readSession(context, request);
  if (lookup.kind !== 'session') return unusableSession(lookup);
  const { session } = lookup;
  const expiresAt = session.createdAt + session.absoluteTimeout;
  return json(200, {
    user: { ...session.claims, sub: session.subject },
    expiresAt,
    idleExpiresAt: Math.min(expiresAt, session.lastSeenAt + session.idleTimeout),
  });
}
