import { isPlatformBrowser } from '@angular/common';
import { InjectionToken, PLATFORM_ID, inject } from '@angular/core';

import { TokenRefreshError } from '../refresh/token-refresh-error';
import { type DPoPKey, loadDPoPKey } from './dpop-key';
import { indexedDbKeyStore, memoryKeyStore } from './dpop-key-store';

/** The DPoP key of one application, loaded (or made) once, when first needed. */
export type DPoPKeys = () => Promise<DPoPKey>;

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
  return () =>
    (key ??=
      browser && typeof crypto !== 'undefined' && crypto.subtle
        ? loadDPoPKey(indexedDbKeyStore(name) ?? memoryKeyStore(), memoryKeyStore())
        : Promise.reject(
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
