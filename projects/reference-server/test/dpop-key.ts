import { createHash, randomUUID } from 'node:crypto';

import { type CryptoKey, type JWK, SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';

// DPoP proofs for the suite, made with jose (WebCrypto), an implementation independent of the
// server's (fast-jwt's decoder and node:crypto's verify), so each checks the other: the server must
// accept what jose signs, and jose's thumbprint must be the server's `cnf.jkt`.

/** What a proof says; anything left out is what a correct client would send. */
export interface ProofClaims {
  readonly htm: string;
  readonly htu: string;
  readonly nonce?: string;
  /** The access token that goes with the request: `ath` is its SHA-256. */
  readonly accessToken?: string;
  /** Seconds since the epoch; default: the clock given to {@link createDpopKey}. */
  readonly iat?: number;
  readonly jti?: string;
  /** Claims to set or (with `undefined`) leave out, after the ones above. */
  readonly override?: Readonly<Record<string, unknown>>;
  /** Protected header members to set or (with `undefined`) leave out, after `typ`, `alg`, `jwk`. */
  readonly header?: Readonly<Record<string, unknown>>;
  /** Sign with another key than the one the header names (a forgery). */
  readonly signWith?: CryptoKey;
}

/** A client's P-256 key pair and the proofs it makes; from {@link createDpopKey}. */
export interface DpopKey {
  /** The public key as a JWK: `kty`, `crv`, `x`, `y`. */
  readonly jwk: JWK;
  /** The public and private key as a JWK (`d` too): what must never be in a header. */
  readonly privateJwk: JWK;
  /** jose's RFC 7638 thumbprint of the public key. */
  readonly jkt: string;
  readonly privateKey: CryptoKey;
  proof(claims: ProofClaims): Promise<string>;
}

/** base64url(SHA-256(text)), the `ath` of an access token. */
export function accessTokenHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}

/** A new key pair; proofs' `iat` comes from `now` (milliseconds), the servers' clock in the suite. */
export async function createDpopKey(now: () => number = Date.now): Promise<DpopKey> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const { kty, crv, x, y } = await exportJWK(publicKey);
  const jwk: JWK = { kty, crv, x, y };
  return {
    jwk,
    privateJwk: await exportJWK(privateKey),
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    privateKey,
    async proof({ htm, htu, nonce, accessToken, iat, jti, override = {}, header = {}, signWith }) {
      const claims: Record<string, unknown> = {
        jti: jti ?? randomUUID(),
        htm,
        htu,
        iat: iat ?? Math.floor(now() / 1000),
        ...(nonce === undefined ? {} : { nonce }),
        ...(accessToken === undefined ? {} : { ath: accessTokenHash(accessToken) }),
        ...override,
      };
      const protectedHeader: Record<string, unknown> = { typ: 'dpop+jwt', alg: 'ES256', jwk, ...header };
      return new SignJWT(withoutUndefined(claims))
        .setProtectedHeader(withoutUndefined(protectedHeader) as { alg: string })
        .sign(signWith ?? privateKey);
    },
  };
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
