import type { GateOutcome } from './create-refresh-gate';
import { jsonError } from './json-error';
import type { SessionLookup } from './read-session';
import { clearedSessionCookie } from './session-cookie';

/**
 * The answer to a request whose session cannot be used:
 * - no session cookie: 401 `NoSession`;
 * - a session that is over: 401 `SessionEnded`, and the cookie is cleared, so the next request of
 *   that browser says `NoSession` (the browser side reports the end once);
 * - a provider or store that did not answer: 503, and the session is kept for the next request.
 */
export function unusableSession(
  outcome: Exclude<SessionLookup, { kind: 'session' }> | Exclude<GateOutcome, { kind: 'fresh' }>,
): Response {
  switch (outcome.kind) {
    case 'none':
      return jsonError(401, 'NoSession', 'Not signed in.');
    case 'ended':
      return jsonError(401, 'SessionEnded', 'Your session has ended; please sign in again.', {
        'set-cookie': clearedSessionCookie(),
      });
    default:
      return jsonError(503, outcome.code, `Try again later: ${outcome.reason}.`, { 'retry-after': '1' });
  }
}
