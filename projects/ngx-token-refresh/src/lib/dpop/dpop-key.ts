import type { DPoPKeyStore } from './dpop-key-store';

/** A key pair ready to sign proofs: what is the same for every proof is computed once. */
export interface DPoPKey {
  readonly privateKey: CryptoKey;
  readonly pair: CryptoKeyPair;
  /** The proofs' JOSE header, base64url-encoded: `typ`, `alg` and the public `jwk`. */
  readonly header: string;
  /** The public key's JWK thumbprint (RFC 7638), as servers write it into `cnf.jkt`. */
  readonly thumbprint: string;
}

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/**
 * The origin's key: the one stored, or a new P-256 pair whose private key cannot be exported, stored
 * for the other tabs and the next reload. When the store fails (a private mode that refuses to keep
 * a `CryptoKey`), `fallback` keeps it for this tab only.
 */
export async function loadDPoPKey(store: DPoPKeyStore, fallback: DPoPKeyStore): Promise<DPoPKey> {
  let pair: CryptoKeyPair | undefined;
  try {
    pair = (await store.load()) ?? (await store.add(await generate()));
  } catch {
    pair = (await fallback.load()) ?? (await fallback.add(await generate()));
  }
  return toDPoPKey(pair);
}

/** `pair`, ready to sign proofs with. */
export async function toDPoPKey(pair: CryptoKeyPair): Promise<DPoPKey> {
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  const jwk = { crv, kty, x, y };
  return {
    privateKey: pair.privateKey,
    pair,
    header: base64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk })),
    // RFC 7638: the required members in lexicographic order, no whitespace.
    thumbprint: base64url(await sha256(JSON.stringify(jwk))),
  };
}

function generate(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(ES256, false, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

/** SHA-256 of the UTF-8 bytes of `text`. */
export function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
}

/** base64url without padding, of a string's UTF-8 bytes or of raw bytes. */
export function base64url(input: string | ArrayBuffer): string {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : new Uint8Array(input);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
