import { DOCUMENT, inject } from '@angular/core';

import { RuntimeError } from '../internal/runtime-error';
import { readBaseHref } from '../core/create-token-url-policy';
import { type TokenRefreshFeature, makeTokenRefreshFeature } from '../core/token-refresh-feature';
import type { GatePluginFactory } from '../core/gate-plugin';
import { provideGatePlugin } from '../core/provide-gate-plugin';
import { DPOP_KEYS, createDPoPKeys } from './dpop-keys';
import { DPoPTransport } from './dpop-transport';

/** Options of {@link withDPoP}. */
export interface DPoPOptions {
  /**
   * The IndexedDB database that keeps the key pair: every tab of the origin with the same name uses
   * the same key. Give applications on one origin that have separate sessions separate names.
   * Default: `'ngx-token-refresh'`.
   */
  readonly name?: string;
}

/**
 * Sender-constrained tokens (DPoP, RFC 9449): the access and refresh tokens are bound to a key pair
 * this browser made and cannot export, so a token copied out of the page (an XSS payload, an
 * extension, a log line) is refused without the key.
 *
 * - **The key**: ECDSA P-256, made with WebCrypto, the private key non-extractable, kept in IndexedDB
 *   (`name`) so that a reload and every tab of the origin use the same key. Where IndexedDB cannot keep
 *   it (some private modes), it lives in this tab's memory: a reload then makes a new key, and the next
 *   refresh is refused and ends the session once, cleanly. So does clearing the site's data for a new
 *   page; a tab that holds the session's key keeps it, puts it back in the store at its next refresh,
 *   and follows a new session bound to another tab's stored key (a JWT's `cnf.jkt`).
 * - **Every request that carries the token** goes with `Authorization: DPoP <token>` and a `DPoP`
 *   proof signed for it (`htm`, `htu` without query and fragment, `iat`, a fresh `jti`, `ath`, and the
 *   server's nonce once it gave one); the refresh request gets a proof without `ath`. `setAuthHeader`
 *   is not used.
 * - **Nonces**: a `DPoP-Nonce` in any answer is kept per origin and used from then on. A
 *   `use_dpop_nonce` challenge (a 401 from an API, a 400 from a token endpoint) is answered by sending
 *   the request again, once, with a new proof: it is not a token refresh, and other requests are not
 *   held for it.
 * - **Cost**: the key, its JOSE header and thumbprint, and the hash of the current token are computed
 *   once; each request costs one signature (never a cached proof).
 * - **Never** on the server: a render has no key. A request that would carry the token, and a
 *   refresh, fail with `TokenRefreshError` `NoKey` there, as they do in a browser without WebCrypto
 *   (an insecure context).
 *
 * The server must speak DPoP (and, across origins, allow the `DPoP` request header and expose
 * `DPoP-Nonce` and `WWW-Authenticate`). Sign-in libraries that make the first tokens (the code
 * exchange) must use the same key: {@link injectDPoPKeyPair}.
 *
 * @usageNotes
 * ```ts
 * provideTokenRefresh(options, withDPoP(), withCrossTabSync());
 * ```
 *
 * @throws in dev mode, when an option has the wrong type.
 */
export function withDPoP(options: DPoPOptions = {}): TokenRefreshFeature<'DPoP'> {
  if (typeof ngDevMode !== 'undefined' && ngDevMode) {
    const { name } = options ?? {};
    if (
      typeof options !== 'object' ||
      options === null ||
      (name !== undefined && (typeof name !== 'string' || name === ''))
    ) {
      throw new RuntimeError('InvalidOptions', 'withDPoP: name must be a non-empty string');
    }
  }
  const name = options.name ?? 'ngx-token-refresh';
  const factory: GatePluginFactory = () => {
    const document = inject(DOCUMENT, { optional: true });
    return new DPoPTransport(inject(DPOP_KEYS), () => readBaseHref(document));
  };
  return makeTokenRefreshFeature('DPoP', [
    { provide: DPOP_KEYS, useFactory: () => createDPoPKeys(name) },
    ...provideGatePlugin(factory),
  ]);
}
