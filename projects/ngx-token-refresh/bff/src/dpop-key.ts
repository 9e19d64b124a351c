import { generateKeyPair } from 'oauth4webapi';

import type { BffSession } from './bff-session';

/** A DPoP key pair as a session record keeps it (JWKs, so that every instance can sign with it). */
export type DpopKeyJwks = NonNullable<BffSession['dpopKey']>;

/** ES256: the algorithm the BFF signs DPoP proofs with (the one every DPoP provider supports). */
export const DPOP_ALGORITHM = 'ES256';

const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/**
 * A new DPoP key pair for a new session, and its JWKs for the session record. The private key must
 * leave this process (another instance signs the session's next proof), so it is extractable; it
 * lives where the refresh token lives, in the store.
 */
export async function createDpopKey(): Promise<{ readonly keyPair: CryptoKeyPair; readonly jwks: DpopKeyJwks }> {
  const keyPair = await generateKeyPair(DPOP_ALGORITHM, { extractable: true });
  const [publicJwk, privateJwk] = await Promise.all([
    crypto.subtle.exportKey('jwk', keyPair.publicKey),
    crypto.subtle.exportKey('jwk', keyPair.privateKey),
  ]);
  return { keyPair, jwks: { publicJwk, privateJwk } };
}

/**
 * The key pair of a session record. The private key comes back unextractable (nothing here exports it
 * again); the public one extractable, as oauth4webapi puts it in every proof's header.
 */
export async function importDpopKey(jwks: DpopKeyJwks): Promise<CryptoKeyPair> {
  const [publicKey, privateKey] = await Promise.all([
    crypto.subtle.importKey('jwk', jwks.publicJwk, EC_P256, true, ['verify']),
    crypto.subtle.importKey('jwk', jwks.privateJwk, EC_P256, false, ['sign']),
  ]);
  return { publicKey, privateKey };
}
