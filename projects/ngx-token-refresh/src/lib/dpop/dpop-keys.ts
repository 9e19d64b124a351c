import { isPlatformBrowser } from '@angular/common';
import { InjectionToken, PLATFORM_ID, inject } from '@angular/core';

import { TokenRefreshError } from '../refresh/token-refresh-error';
import { type DPoPKey, loadDPoPKey } from './dpop-key';
import { indexedDbKeyStore, memoryKeyStore } from './dpop-key-store';

/**
 * The DPoP key of one application, loaded (or made) when first needed and kept. `reload`: read the
 * store again first, for a proof that (re)binds the session (a sign-in, a refresh): another tab may
 * have made a new key since (after the storage was cleared), and every tab must prove the stored one.
 */
export type DPoPKeys = (reload?: boolean) => Promise<DPoPKey>;

/** The key source `withDPoP()` registered in the injector that provides the interceptor. */
export const DPOP_KEYS = new InjectionToken<DPoPKeys>(typeof ngDevMode !== 'undefined' && ngDevMode ? 'DPOP_KEYS' : '');

/**
 * The key source of one application, in its injection context. On the server, and where WebCrypto is
 * missing (an insecure context), there is no key: every use fails with `TokenRefreshError` `NoKey`,
 * so a request that needs a proof fails cleanly, and a refresh fails once (no loop).
 */
export function createDPoPKeys(name: string): DPoPKeys {
  const browser = isPlatformBrowser(inject(PLATFORM_ID));
  let key: Promise<DPoPKey> | undefined;
  if (browser && typeof crypto !== 'undefined' && crypto.subtle) {
    const store = indexedDbKeyStore(name) ?? memoryKeyStore();
    const fallback = memoryKeyStore();
    const load = () => loadDPoPKey(store, fallback);
    return (reload) => {
      if (key && reload) {
        // Nothing changed: keep the object, so that the pair injectDPoPKeyPair() handed out stays it.
        const previous = key;
        key = Promise.all([previous.catch(() => null), load()]).then(([current, stored]) =>
          current?.header === stored.header ? current : stored,
        );
      }
      return (key ??= load());
    };
  }
  return () =>
    (key ??= Promise.reject(
      new TokenRefreshError(
        'NoKey',
        typeof ngDevMode !== 'undefined' &&
          ngDevMode &&
          (browser
            ? 'withDPoP() needs WebCrypto (crypto.subtle), which the browser offers in secure contexts only (https, or localhost)'
            : "withDPoP() has no key on the server: a server render cannot sign proofs with the browser's key"),
      ),
    ));
}
