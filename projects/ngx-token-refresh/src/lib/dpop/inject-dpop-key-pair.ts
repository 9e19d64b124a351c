import { inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { DPOP_KEYS } from './dpop-keys';

/**
 * Returns the key pair `withDPoP()` signs with (loaded, or made and stored, on first use), for the
 * code that makes the first tokens: the sign-in's code exchange must prove the same key, or the
 * tokens are bound to another one. The private key cannot be exported; hand the pair to the
 * sign-in library (oauth4webapi: `DPoP(client, keyPair)`). Call it in an injection context.
 *
 * @usageNotes
 * ```ts
 * const keyPair = await injectDPoPKeyPair();
 * const dpop = oauth.DPoP(client, keyPair);
 * ```
 *
 * @throws `MissingProvider` when the application's interceptor has no `withDPoP()`; the promise fails
 *   with `TokenRefreshError` `NoKey` on the server and without WebCrypto.
 */
export function injectDPoPKeyPair(): Promise<CryptoKeyPair> {
  const keys = inject(DPOP_KEYS, { optional: true });
  if (!keys) {
    throw new RuntimeError(
      'MissingProvider',
      typeof ngDevMode !== 'undefined' &&
        ngDevMode &&
        "injectDPoPKeyPair() needs withDPoP() among the interceptor's features",
    );
  }
  return keys.current().then((key) => key.pair);
}
