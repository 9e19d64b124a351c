import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { needsRefresh } from './needs-refresh';
import { refreshGrant } from './refresh-grant';

/** What {@link RefreshGate.fresh} found. */
export type GateOutcome =
  /** A session whose access token is worth sending (the one given, or a newer one). */
  | { readonly kind: 'fresh'; readonly session: BffSession }
  /** The session is over and deleted (the provider refused its refresh token, or it was gone). */
  | { readonly kind: 'ended'; readonly reason: string }
  /** Nothing known changed; answer 503 and keep the session. */
  | {
      readonly kind: 'unavailable';
      readonly code: 'ProviderUnavailable' | 'StoreUnavailable' | 'ShuttingDown';
      readonly reason: string;
    };

/** Why a request asks the gate for a fresh session. */
export type RefreshReason =
  /** The access token is expired or about to (see `needsRefresh`): refresh unless someone did. */
  | 'expiring'
  /** An API refused the access token of this very version: refresh unless someone did since. */
  | 'rejected';

/** The server-side gate of one BFF instance; see {@link createRefreshGate}. */
export interface RefreshGate {
  /** A session whose token is fresh, for a request that holds `session` and found it lacking for `reason`. */
  fresh(session: BffSession, reason: RefreshReason): Promise<GateOutcome>;
  /** Lets the refreshes under way finish (and their tokens be saved), then refuses to start any. */
  close(): Promise<void>;
}

/**
 * The gate, server-side: however many requests of one session find its token expired at once, on
 * however many instances, the provider sees one refresh grant, and no refresh token is presented
 * after it rotated (which a provider with strict rotation takes for a theft, and answers by revoking
 * the sign-in: RFC 9700, section 4.14.2).
 *
 * - In this process, requests of one session join the refresh under way (a map of flights by session
 *   key), as the interceptor's queue does in a tab.
 * - Across instances, the refresh runs inside the store's `change`, which holds the session (a row
 *   lock in PostgreSQL) and hands over the record as the last change left it. A request that held
 *   version `n` and finds a higher version there takes those tokens with no grant: another instance
 *   refreshed meanwhile.
 * - `invalid_grant` deletes the session; a provider that does not answer (or not as it should)
 *   leaves it as it was, so the next request tries again.
 */
export function createRefreshGate(context: BffContext): RefreshGate {
  const flights = new Map<string, { readonly from: number; readonly outcome: Promise<GateOutcome> }>();
  let closed = false;

  const fly = async (seen: BffSession, reason: RefreshReason): Promise<GateOutcome> => {
    let outcome: GateOutcome;
    try {
      outcome = await context.options.store.change<GateOutcome>(seen.key, async (current) => {
        if (current === null) return { result: ended('the session is over') };
        if (current.version > seen.version) return { result: { kind: 'fresh', session: current } };
        if (reason === 'expiring' && !needsRefresh(current, Date.now())) {
          return { result: { kind: 'fresh', session: current } };
        }
        const grant = await refreshGrant(context, current);
        switch (grant.kind) {
          case 'refreshed': {
            const next: BffSession = { ...current, ...grant.tokens, version: current.version + 1 };
            return { result: { kind: 'fresh', session: next }, save: next };
          }
          case 'refused':
            return { result: ended(grant.reason), delete: true };
          default:
            return { result: { kind: 'unavailable', code: 'ProviderUnavailable', reason: grant.reason } };
        }
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      outcome = { kind: 'unavailable', code: 'StoreUnavailable', reason: `the session store failed: ${message}` };
    }
    if (outcome.kind === 'ended') context.dpopHandles.forget(seen.key);
    if (outcome.kind === 'unavailable') {
      context.options.onWarning(`a session's token could not be refreshed (the session is kept): ${outcome.reason}`);
    }
    return outcome;
  };

  return {
    fresh: (session, reason) => {
      const flight = flights.get(session.key);
      // A refresh from this version or a later one gives a token newer than the one this request
      // holds; one from an older version may give exactly the token that an API just refused.
      if (flight !== undefined && flight.from >= session.version) return flight.outcome;
      if (closed) {
        return Promise.resolve({
          kind: 'unavailable',
          code: 'ShuttingDown',
          reason: 'this instance is shutting down; another one will refresh',
        });
      }
      const entry = { from: session.version, outcome: fly(session, reason) };
      flights.set(session.key, entry);
      void entry.outcome.finally(() => flights.get(session.key) === entry && flights.delete(session.key));
      return entry.outcome;
    },
    close: async () => {
      closed = true;
      while (flights.size > 0) await Promise.allSettled([...flights.values()].map((flight) => flight.outcome));
    },
  };
}

function ended(reason: string): GateOutcome {
  return { kind: 'ended', reason };
}
