import { isPlatformBrowser } from '@angular/common';
import { InjectionToken, PLATFORM_ID, inject } from '@angular/core';

import { TokenRefreshError } from '../core/token-refresh-error';
import { type DPoPKey, loadDPoPKey, toDPoPKey } from './dpop-key';
import { indexedDbKeyStore, memoryKeyStore } from './dpop-key-store';

/**
 * The DPoP key of one application. A tab keeps the key it started with (a read that fails or finds
 * another key later changes nothing), except to follow a session bound to the key another tab stored.
 */
export interface DPoPKeys {
  /** This tab's key: the stored one (or a new one, stored) on first use, then kept. */
  current(): Promise<DPoPKey>;
  /**
   * For a token bound to the key of thumbprint `jkt` (`cnf.jkt`) that is not this tab's (another tab
   * signed in after the stored key was replaced): the stored key, when it is that one, becomes this
   * tab's. Otherwise this tab's key stays.
   */
  follow(jkt: string): Promise<DPoPKey>;
  /**
   * The server has just accepted this tab's key for the session (a sign-in, a refresh): puts it back
   * in the store when the store lost it or holds another, so that other tabs and the next reload use
   * the session's key. Never fails.
   */
  keep(): Promise<void>;
}

/** The key source `withDPoP()` registered in the injector that provides the interceptor. */
export const DPOP_KEYS = new InjectionToken<DPoPKeys>(typeof ngDevMode !== 'undefined' && ngDevMode ? 'DPOP_KEYS' : '');

/**
 * The key source of one application, in its injection context. On the server, and where WebCrypto is
 * missing (an insecure context), there is no key: every use fails with `TokenRefreshError` `NoKey`,
 * so a request that needs a proof fails cleanly, and a refresh fails once (no loop).
 */
export function createDPoPKeys(name: string, store = indexedDbKeyStore(name) ?? memoryKeyStore()): DPoPKeys {
  const browser = isPlatformBrowser(inject(PLATFORM_ID));
  if (!browser || typeof crypto === 'undefined' || !crypto.subtle) {
    const none = () =>
      Promise.reject(
        new TokenRefreshError(
          'NoKey',
          typeof ngDevMode !== 'undefined' &&
            ngDevMode &&
            (browser
              ? 'withDPoP() needs WebCrypto (crypto.subtle), which the browser offers in secure contexts only (https, or localhost)'
              : "withDPoP() has no key on the server: a server render cannot sign proofs with the browser's key"),
        ),
      );
    return { current: none, follow: none, keep: () => Promise.resolve() };
  }
  const fallback = memoryKeyStore();
  let key: Promise<DPoPKey> | undefined;
  const current = () => (key ??= loadDPoPKey(store, fallback));
  return {
    current,
    follow: (jkt) =>
      (key = current().then(async (mine) => {
        if (mine.thumbprint === jkt) return mine;
        try {
          const stored = await store.load();
          const candidate = stored && (await toDPoPKey(stored));
          return candidate?.thumbprint === jkt ? candidate : mine;
        } catch {
          return mine;
        }
      })),
    keep: async () => {
      try {
        const mine = await current();
        const stored = await store.load();
        if (!stored || (await toDPoPKey(stored)).thumbprint !== mine.thumbprint) await store.replace(mine.pair);
      } catch {
        // A store that cannot be read or written now (a private mode, a lost connection): this tab
        // keeps signing with its key; only other tabs and the next reload miss it.
      }
    },
  };
}
