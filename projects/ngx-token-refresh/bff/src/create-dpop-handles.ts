import { type Client, type DPoPHandle, DPoP } from 'oauth4webapi';

import type { BffSession } from './bff-session';
import { importDpopKey } from './dpop-key';

/** How many sessions' handles an instance keeps; one more is imported again, at the cost of a nonce challenge. */
const MAX_HANDLES = 1_000;

/** The DPoP handles of this instance's sessions (see {@link createDpopHandles}). */
export interface DpopHandles {
  /** The handle that signs `session`'s proofs, or `undefined` when the session has no DPoP key. */
  of(session: BffSession): Promise<DPoPHandle | undefined>;
  /** Keeps the handle of a session just made (with the nonces it has learnt at its sign-in). */
  add(key: string, handle: DPoPHandle): void;
  /** Forgets a session's handle (it ended). */
  forget(key: string): void;
}

/**
 * A per-instance cache of oauth4webapi DPoP handles by session key. A handle remembers the nonce each
 * server gave it (`DPoP-Nonce`), so keeping it saves a `use_dpop_nonce` round trip on every call; the
 * key pair itself comes from the session record, so any instance can make the handle of any session.
 * The least recently used handle goes first when the cache is full.
 */
export function createDpopHandles(client: Client): DpopHandles {
  const handles = new Map<string, Promise<DPoPHandle>>();
  const keep = (key: string, handle: Promise<DPoPHandle>) => {
    handles.delete(key);
    handles.set(key, handle);
    if (handles.size > MAX_HANDLES) handles.delete(handles.keys().next().value as string);
    // A key that does not import is not kept: the next request tries again (and fails as clearly).
    handle.catch(() => handles.get(key) === handle && handles.delete(key));
    return handle;
  };
  return {
    of: (session) => {
      const dpopKey = session.dpopKey;
      if (dpopKey === null) return Promise.resolve(undefined);
      const known = handles.get(session.key);
      return keep(session.key, known ?? importDpopKey(dpopKey).then((keyPair) => DPoP(client, keyPair)));
    },
    add: (key, handle) => void keep(key, Promise.resolve(handle)),
    forget: (key) => void handles.delete(key),
  };
}
