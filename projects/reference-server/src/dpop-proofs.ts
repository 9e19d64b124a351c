import { type KeyObject, createHash, createPublicKey, verify as verifySignature } from 'node:crypto';

import type { FastifyReply, FastifyRequest } from 'fastify';
import { createDecoder } from 'fast-jwt';

import { type DpopNonces, createDpopNonces } from './dpop-nonces.js';
import type { Repository } from './repository.js';

/** A DPoP proof that passed {@link DpopProofs.check}: everything but the replay check. */
export interface DpopProof {
  /** The RFC 7638 thumbprint of the proof's public key (base64url SHA-256): what tokens are bound to. */
  readonly jkt: string;
  readonly jti: string;
  /** The time step of the proof's nonce (see dpop-nonces.ts). */
  readonly nonceStep: number;
  /** Whether the proof carried the nonce handed out now; if not, the answer brings the current one. */
  readonly nonceIsCurrent: boolean;
}

/** The RFC 9449 error codes a proof can earn: a proof that is wrong, or one whose nonce is missing or stale. */
export type DpopProblem = 'invalid_dpop_proof' | 'use_dpop_nonce';

/** What {@link DpopProofs.check} found. `reason` is a clause for people, e.g. `its htm is not POST`. */
export type DpopProofCheck =
  | { readonly ok: true; readonly proof: DpopProof }
  | { readonly ok: false; readonly problem: DpopProblem; readonly reason: string };

/** Checks DPoP proofs (RFC 9449 §4.3) and remembers the accepted ones; from {@link createDpopProofs}. */
export interface DpopProofs {
  /**
   * Checks the request's `DPoP` header: one compact JWS, `typ` `dpop+jwt`, `alg` `ES256`, a public
   * P-256 `jwk` in the header whose key made the signature, `jti`, `htm` (the request's method),
   * `htu` (the URI the request was sent to, without query and fragment), `iat` within
   * {@link ISSUED_AT_WINDOW_SECONDS} of the server's clock, a `nonce` this server handed out and still
   * accepts, and, with `accessToken`, `ath` (its SHA-256). Synchronous and without the database; the
   * replay check is {@link record}'s.
   */
  check(request: FastifyRequest, accessToken: string | null): DpopProofCheck;
  /** Records the proof: `false` when it was accepted before, by any instance (a replay). */
  record(proof: DpopProof): Promise<boolean>;
  /** The nonce to hand out now. */
  nonce(): string;
  /** Sets `DPoP-Nonce` on the answer unless the proof carried the current nonce already. */
  sendNonce(reply: FastifyReply, proof: DpopProof): void;
}

/** The one signature algorithm accepted: ECDSA on P-256 with SHA-256, what browsers sign with. */
export const DPOP_ALGORITHM = 'ES256';
/**
 * How far the proof's `iat` may lie from the server's clock, either way, in seconds. The nonce already
 * bounds a proof's life by the server's clock (at most a few minutes); this window only refuses a proof
 * whose maker claims a time far off, and leaves room for a device clock that is some minutes wrong.
 */
export const ISSUED_AT_WINDOW_SECONDS = 300;
/** A proof with a key and a nonce is some 600 characters; far longer is refused before parsing. */
const MAX_PROOF_LENGTH = 4096;
/** RFC 9449 §11.1 asks for 96 bits of randomness at least; far longer ids are refused. */
const MAX_JTI_LENGTH = 256;
/** A P-256 coordinate in base64url: 32 bytes, 43 characters. */
const COORDINATE = /^[A-Za-z0-9_-]{43}$/;
/** Members of a private JWK: a header carrying any of them carries a private key, and is refused. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** How many public keys (parsed, with their thumbprints) are remembered: one per client key in use. */
const KEYS_KEPT = 1000;

/** A public key from a proof's header, parsed once, and its thumbprint. */
interface ProofKey {
  readonly key: KeyObject;
  readonly jkt: string;
}

/**
 * The server's side of DPoP proofs: {@link DpopProofs.check}, {@link DpopProofs.record} and the
 * nonces (stateless, derived from `jwtSecret`: see dpop-nonces.ts). `now` is the clock in milliseconds.
 *
 * Parsing is fast-jwt's decoder (strict base64url, JSON objects only); the signature is checked here
 * with node:crypto against the key in the header, with the algorithm pinned to ES256 and the key
 * pinned to a public P-256 key, so `alg: none`, HMAC algorithms (whose "key" would be the public
 * key's text) and private keys in the header are all refused. The key, once parsed, and its
 * thumbprint are remembered (a client signs every proof with the same key); proofs themselves never
 * are. A proof is remembered in the database (`dpop_proofs`) by a hash of its key's thumbprint and its
 * `jti` until its nonce expires everywhere, so instances sharing the database refuse each other's
 * replays.
 *
 * @example
 * const proofs = createDpopProofs({ jwtSecret: config.jwtSecret, now, repository });
 * const check = proofs.check(request, accessToken);
 * if (check.ok && (await proofs.record(check.proof))) accept(check.proof.jkt);
 */
export function createDpopProofs(options: {
  readonly jwtSecret: Uint8Array;
  readonly now: () => number;
  readonly repository: Repository;
}): DpopProofs {
  const { now, repository } = options;
  const nonces: DpopNonces = createDpopNonces(options.jwtSecret, now);
  const decode = createDecoder({ complete: true });
  const keys = new Map<string, ProofKey>();

  const proofKey = (jwk: unknown): ProofKey | null => {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return null;
    const members = jwk as Record<string, unknown>;
    if (PRIVATE_MEMBERS.some((member) => member in members)) return null;
    const { kty, crv, x, y } = members;
    if (kty !== 'EC' || crv !== 'P-256' || !isCoordinate(x) || !isCoordinate(y)) return null;
    const cacheKey = `${x}.${y}`;
    const known = keys.get(cacheKey);
    if (known) return known;
    let key: KeyObject;
    try {
      // Refuses a point that is not on the curve.
      key = createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
    } catch {
      return null;
    }
    // RFC 7638: the required members, in lexicographic order, without white space.
    const jkt = sha256(`{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`);
    if (keys.size >= KEYS_KEPT) keys.delete(keys.keys().next().value as string);
    const entry = { key, jkt };
    keys.set(cacheKey, entry);
    return entry;
  };

  return {
    check(request, accessToken) {
      const invalid = (reason: string): DpopProofCheck => ({ ok: false, problem: 'invalid_dpop_proof', reason });
      const header = request.headers['dpop'];
      if (typeof header !== 'string' || header === '') return invalid('there is no DPoP header');
      // Node joins repeated headers with ", ", and a JWS has no comma: several proofs are refused.
      if (header.includes(',')) return invalid('it came more than once');
      if (header.length > MAX_PROOF_LENGTH) return invalid('it is too long');
      let decoded: {
        header: Record<string, unknown>;
        payload: Record<string, unknown>;
        signature: string;
        input: string;
      };
      try {
        decoded = decode(header) as typeof decoded;
      } catch {
        return invalid('it is not a JWT');
      }
      const { header: protectedHeader, payload, signature, input } = decoded;
      const { typ, alg, jwk, crit } = protectedHeader;
      // The media type's name is case-insensitive and may carry its "application/" (RFC 7515 §4.1.9).
      if (typeof typ !== 'string' || typ.toLowerCase().replace(/^application\//, '') !== 'dpop+jwt') {
        return invalid('its typ is not dpop+jwt');
      }
      if (alg !== DPOP_ALGORITHM) return invalid(`its alg is not ${DPOP_ALGORITHM}`);
      // No extension is understood here, so none may be critical.
      if (crit !== undefined) return invalid('it names critical extensions');
      const key = proofKey(jwk);
      if (key === null) return invalid('its jwk is not a public P-256 key');
      const signatureBytes = Buffer.from(signature, 'base64url');
      // ES256 is R || S, 64 bytes (RFC 7518 §3.4), what WebCrypto signs; no DER.
      if (
        signatureBytes.length !== 64 ||
        !verifySignature(
          'sha256',
          Buffer.from(input, 'latin1'),
          { key: key.key, dsaEncoding: 'ieee-p1363' },
          signatureBytes,
        )
      ) {
        return invalid('its signature does not match its key');
      }

      const { jti, htm, htu, iat, ath, nonce } = payload;
      if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) return invalid('its jti is missing');
      if (htm !== request.method) return invalid(`its htm is not ${request.method}`);
      const target = requestUri(request);
      if (target === null || typeof htu !== 'string' || normalise(htu) !== target) {
        return invalid(`its htu is not ${target ?? 'the URI of this request'}`);
      }
      const nonceStep = nonces.check(nonce);
      if (nonceStep === null) {
        return {
          ok: false,
          problem: 'use_dpop_nonce',
          reason: nonce === undefined ? 'it has no nonce' : 'its nonce is not valid, or no longer',
        };
      }
      if (typeof iat !== 'number' || !Number.isFinite(iat)) return invalid('its iat is missing');
      if (Math.abs(now() / 1000 - iat) > ISSUED_AT_WINDOW_SECONDS) {
        return invalid(`its iat is more than ${ISSUED_AT_WINDOW_SECONDS} s away from the server's clock`);
      }
      if (accessToken !== null && ath !== sha256(accessToken)) {
        return invalid(ath === undefined ? 'its ath is missing' : 'its ath is not the hash of the access token');
      }
      return {
        ok: true,
        proof: { jkt: key.jkt, jti, nonceStep, nonceIsCurrent: nonce === nonces.current() },
      };
    },

    record(proof) {
      const key = createHash('sha256').update(`${proof.jkt}.${proof.jti}`).digest('hex');
      return repository.recordDpopProof(key, new Date(nonces.acceptedUntil(proof.nonceStep)));
    },

    nonce: () => nonces.current(),

    sendNonce(reply, proof) {
      if (!proof.nonceIsCurrent) reply.header('DPoP-Nonce', nonces.current());
    },
  };
}

/** A base64url P-256 coordinate in its one canonical spelling (so one key has one thumbprint). */
function isCoordinate(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    COORDINATE.test(value) &&
    Buffer.from(value, 'base64url').toString('base64url') === value
  );
}

/** base64url(SHA-256(text)): `ath` and the thumbprint. */
function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * The URI the client sent the request to, as RFC 9449 compares `htu`: scheme and host as the request
 * (or, under TRUST_PROXY, the proxy's `X-Forwarded-Proto` and `X-Forwarded-Host`) says, the path as
 * sent (a trailing slash included), no query, no fragment, normalised as a URL (RFC 3986 §6.2.2-6.2.3:
 * scheme and host in lower case, no default port). `null` when there is no such URI.
 */
function requestUri(request: FastifyRequest): string | null {
  const raw = request.url;
  // Only origin-form targets: an absolute-form one would let the request name its own host.
  if (!raw.startsWith('/')) return null;
  const end = raw.search(/[?#]/);
  try {
    const url = new URL(`${request.protocol}://${request.host}`);
    const { pathname, search, hash, username, password } = url;
    if (pathname !== '/' || search !== '' || hash !== '' || username !== '' || password !== '') return null;
    url.pathname = end === -1 ? raw : raw.slice(0, end);
    return url.href;
  } catch {
    return null;
  }
}

/** A proof's `htu` normalised as {@link requestUri} normalises the request's, or `null`. */
function normalise(htu: string): string | null {
  try {
    const url = new URL(htu);
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}
