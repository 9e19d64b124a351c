/**
 * Where the DPoP key pair is kept so that a reload and every tab of the origin use the same key (the
 * refresh token is bound to it).
 */
export interface DPoPKeyStore {
  /** The stored key pair, or `undefined`. */
  load(): Promise<CryptoKeyPair | undefined>;
  /**
   * Stores `pair` unless one is stored already, and returns the one stored: `pair`, or the one
   * another tab stored first (so two tabs that made a key at the same moment end with one).
   */
  add(pair: CryptoKeyPair): Promise<CryptoKeyPair>;
  /** Stores `pair` in place of whatever is stored. */
  replace(pair: CryptoKeyPair): Promise<void>;
}

/** The IndexedDB object store of the key pairs, in the database `name`. */
const OBJECT_STORE = 'dpop-keys';
const KEY = 'default';

/**
 * IndexedDB, the one browser storage that keeps a non-extractable `CryptoKey` (a structured clone):
 * the private key never leaves the browser's key store as bytes. `add`, never `put`: of two tabs
 * making a key at once, the second finds the first one's and uses it. `null` where IndexedDB is
 * missing (the server, an old browser).
 */
export function indexedDbKeyStore(name: string): DPoPKeyStore | null {
  if (typeof indexedDB === 'undefined') return null;
  const open = () =>
    request<IDBDatabase>(() => {
      const opening = indexedDB.open(name, 1);
      opening.onupgradeneeded = () => opening.result.createObjectStore(OBJECT_STORE);
      return opening;
    });
  const withStore = async <T>(mode: IDBTransactionMode, body: (store: IDBObjectStore) => IDBRequest<T>) => {
    const database = await open();
    try {
      return await request(() => body(database.transaction(OBJECT_STORE, mode).objectStore(OBJECT_STORE)));
    } finally {
      database.close();
    }
  };
  const load = () => withStore('readonly', (store) => store.get(KEY) as IDBRequest<CryptoKeyPair | undefined>);
  return {
    load,
    add: async (pair) => {
      try {
        await withStore('readwrite', (store) => store.add(pair, KEY));
        return pair;
      } catch (error) {
        // Another tab stored its key first: that one is the key of the origin.
        const stored = await load();
        if (stored) return stored;
        throw error;
      }
    },
    replace: async (pair) => {
      await withStore('readwrite', (store) => store.put(pair, KEY));
    },
  };
}

/** This tab's memory: where IndexedDB cannot keep a key (private modes); gone on reload. */
export function memoryKeyStore(): DPoPKeyStore {
  let stored: CryptoKeyPair | undefined;
  return {
    load: () => Promise.resolve(stored),
    add: (pair) => Promise.resolve((stored ??= pair)),
    replace: (pair) => Promise.resolve(void (stored = pair)),
  };
}

function request<T>(make: () => IDBRequest<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const pending = make();
    pending.onsuccess = () => resolve(pending.result);
    pending.onerror = () => reject(pending.error);
  });
}
