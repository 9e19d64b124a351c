import type { Page } from '@playwright/test';

/** What the scripts of a page can read without the network, each as text to search. */
export interface ScriptReadablePlaces {
  /** The whole document (`outerHTML`): a server render's transfer state would be here too. */
  readonly dom: string;
  readonly localStorage: string;
  readonly sessionStorage: string;
  /** Every record and key of every object store of every database (`indexedDB.databases()`). */
  readonly indexedDB: string;
  /** Every request and body in the Cache API's caches. */
  readonly cacheStorage: string;
  /** The cookies that scripts see (`document.cookie`): not the HttpOnly ones. */
  readonly cookie: string;
  /** How many IndexedDB databases and caches there were (a scan that found none read nothing there). */
  readonly counts: { readonly databases: number; readonly caches: number };
}

/** Reads, in `page`, every place its scripts can read: see {@link ScriptReadablePlaces}. */
export function readScriptReadablePlaces(page: Page): Promise<ScriptReadablePlaces> {
  return page.evaluate(async () => {
    const request = <T>(open: IDBRequest<T>) =>
      new Promise<T>((resolve, reject) => {
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
    const records: string[] = [];
    const databases = await indexedDB.databases();
    for (const { name, version } of databases) {
      if (name === undefined) continue;
      const db = await request(indexedDB.open(name, version));
      for (const storeName of Array.from(db.objectStoreNames)) {
        const store = db.transaction(storeName).objectStore(storeName);
        const [keys, values] = [await request(store.getAllKeys()), await request(store.getAll())];
        records.push(JSON.stringify({ name, storeName, keys, values }));
      }
      db.close();
    }
    const cached: string[] = [];
    const cacheNames = await caches.keys();
    for (const cacheName of cacheNames) {
      const cache = await caches.open(cacheName);
      for (const key of await cache.keys()) {
        cached.push(`${key.url} ${(await (await cache.match(key))?.text()) ?? ''}`);
      }
    }
    return {
      dom: document.documentElement.outerHTML,
      localStorage: JSON.stringify(Object.entries(localStorage)),
      sessionStorage: JSON.stringify(Object.entries(sessionStorage)),
      indexedDB: records.join('\n'),
      cacheStorage: cached.join('\n'),
      cookie: document.cookie,
      counts: { databases: databases.length, caches: cacheNames.length },
    };
  });
}
