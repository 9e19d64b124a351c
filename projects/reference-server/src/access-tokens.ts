import { randomUUID } from 'node:crypto';

import { createSigner, createVerifier } from 'fast-jwt';

import type { Role } from './repository.js';

/** The claims of an access token this server issues. */
export interface AccessTokenClaims {
  /** Subject: the account's username. */
  readonly sub: string;
  /** What the bearer may do: `admin` may write users, `viewer` may only read. */
  readonly role: Role;
  /** The refresh-token family (the login) the token belongs to: what logout revokes. */
  readonly sid: string;
  /** Unique id of this token. */
  readonly jti: string;
  /** Issued at, in seconds since the epoch. */
  readonly iat: number;
  /** Expires at, in seconds since the epoch: rejected from this second on. */
  readonly exp: number;
  /**
   * The `cnf.jkt` claim (RFC 9449 §6.1): the thumbprint of the DPoP key the token is bound to, so it
   * is accepted only with a proof made with that key; `null`: a bearer token.
   */
  readonly jkt: string | null;
}

/** Why a token was rejected: `expired` (an otherwise good token whose time ran out) or `invalid`. */
export type AccessTokenProblem = 'expired' | 'invalid';

/** Signs and verifies this server's access tokens; from {@link createAccessTokens}. */
export interface AccessTokens {
  /**
   * A new signed token for this account and family, valid for the configured lifetime; bound to the
   * DPoP key `jkt` (`cnf.jkt`) when given one.
   */
  issue(subject: {
    readonly username: string;
    readonly role: Role;
    readonly familyId: string;
    readonly jkt?: string | null;
  }): string;
  /**
   * The claims of a token, or why it is rejected. `allowExpired` accepts a genuine token whose time
   * ran out (for logout, where refusing one would only keep a session alive). Never throws.
   * Synchronous: it runs on every API call, and a promise there would only add a microtask.
   */
  verify(
    token: string,
    options?: { readonly allowExpired?: boolean },
  ): { ok: true; claims: AccessTokenClaims } | { ok: false; problem: AccessTokenProblem };
}

/** A token whose signature and claims passed, as {@link createAccessTokens} remembers it. */
interface VerifiedToken {
  readonly claims: AccessTokenClaims;
  /** Not before, in seconds since the epoch, when the token has one (ours never do). */
  readonly nbf: number | undefined;
}

/** The one algorithm issued and accepted: pinning it rejects `alg: none` and key-confusion tricks. */
const ALGORITHM = 'HS256';
const ISSUER = 'ngx-token-refresh-reference-server';
const AUDIENCE = 'ngx-token-refresh-api';
/** A token of ours is a few hundred characters; anything far longer is refused before parsing. */
const MAX_TOKEN_LENGTH = 4096;
/** A JWK SHA-256 thumbprint (RFC 7638) in base64url: 32 bytes, 43 characters. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;
/**
 * How many verified tokens {@link createAccessTokens} remembers. A client sends the same token with
 * every call until it is replaced, so its signature is checked once and later calls find its claims
 * by the token itself (exact string equality: no hash, so no collision to forge). At most
 * 1,000 × {@link MAX_TOKEN_LENGTH} characters of keys.
 */
const VERIFIED_TOKENS_KEPT = 1000;
/**
 * How far in the future `iat` may be, in seconds: the clock skew tolerated between instances that
 * share the key. A token issued later than that is not one of ours (or its issuer's clock is wrong)
 * and is refused as invalid.
 */
export const ISSUED_AT_LEEWAY_SECONDS = 30;

/**
 * Access tokens as JWTs (HS256 with `secret`), carrying `sub`, `role`, `sid`, `jti`, `iat`, `exp`,
 * `iss` and `aud`, and `cnf.jkt` when bound to a DPoP key. Verification pins the algorithm, the issuer and the audience, requires every
 * claim, and refuses an `iat` more than {@link ISSUED_AT_LEEWAY_SECONDS} ahead of `now`, the clock
 * (milliseconds), injectable for tests.
 *
 * Signing and verification are fast-jwt's synchronous HMAC on a key prepared once (jose verifies
 * through WebCrypto, a promise and a thread-pool hop per token, which halved the throughput of an
 * authenticated route). Times are checked here against `now`, since fast-jwt reads its own clock.
 * The claims of the last {@link VERIFIED_TOKENS_KEPT} well-signed tokens are remembered by the token
 * itself, so a client's later calls skip the signature check; the times are still checked on every
 * call. (fast-jwt's own cache keys by a SHA-256 of the token: about 4.7 of the 6.5 µs a cached
 * check cost under load; a custom key makes fast-jwt warn at start-up.)
 *
 * @example
 * const tokens = createAccessTokens({ secret, ttlSeconds: 900, now: Date.now });
 * const token = tokens.issue({ username: 'ada', role: 'admin', familyId });
 */
export function createAccessTokens(options: {
  readonly secret: Uint8Array;
  readonly ttlSeconds: number;
  readonly now: () => number;
  /** Accepted age of an expired token for `allowExpired`, in seconds (the refresh lifetime). */
  readonly expiredGraceSeconds: number;
}): AccessTokens {
  const { ttlSeconds, now, expiredGraceSeconds } = options;
  const key = Buffer.from(options.secret);
  // `iat` comes from the payload (the injectable clock), not from fast-jwt's own.
  const sign = createSigner({ key, algorithm: ALGORITHM });
  const decode = createVerifier({
    key,
    algorithms: [ALGORITHM],
    allowedIss: ISSUER,
    allowedAud: AUDIENCE,
    requiredClaims: ['sub', 'iss', 'aud', 'exp', 'iat', 'jti'],
    // Checked below against the injectable clock.
    ignoreExpiration: true,
    ignoreNotBefore: true,
  });
  const verified = new Map<string, VerifiedToken>();
  return {
    issue({ username, role, familyId, jkt = null }) {
      const iat = Math.floor(now() / 1000);
      return sign({
        role,
        sid: familyId,
        sub: username,
        iss: ISSUER,
        aud: AUDIENCE,
        iat,
        exp: iat + ttlSeconds,
        jti: randomUUID(),
        ...(jkt === null ? {} : { cnf: { jkt } }),
      });
    },

    verify(token, { allowExpired = false } = {}) {
      const known = verified.get(token) ?? checkSignatureAndClaims(token);
      if (known === null) return { ok: false, problem: 'invalid' };
      const { claims, nbf } = known;
      const { iat, exp } = claims;
      const seconds = now() / 1000;
      // The times are checked on every call, against the injectable clock, cached or not.
      if (iat > seconds + ISSUED_AT_LEEWAY_SECONDS) return { ok: false, problem: 'invalid' };
      if (nbf !== undefined && nbf > seconds) return { ok: false, problem: 'invalid' };
      // Expired from the second `exp` on (RFC 7519 §4.1.4); logout accepts it for a while longer.
      if (seconds >= exp + (allowExpired ? expiredGraceSeconds : 0)) return { ok: false, problem: 'expired' };
      return { ok: true, claims };
    },
  };

  /** The claims of a well-signed token of the right shape, remembered; else `null` (not remembered). */
  function checkSignatureAndClaims(token: string): VerifiedToken | null {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    let payload: Record<string, unknown>;
    try {
      payload = decode(token) as Record<string, unknown>;
    } catch {
      return null;
    }
    const { sub, role, sid, jti, iat, exp, nbf, cnf } = payload;
    const jkt = readThumbprint(cnf);
    const valid =
      jkt !== undefined &&
      typeof sub === 'string' &&
      (role === 'admin' || role === 'viewer') &&
      typeof sid === 'string' &&
      typeof jti === 'string' &&
      typeof iat === 'number' &&
      Number.isFinite(iat) &&
      typeof exp === 'number' &&
      Number.isFinite(exp) &&
      (nbf === undefined || (typeof nbf === 'number' && Number.isFinite(nbf)));
    if (!valid) return null;
    const known: VerifiedToken = { claims: { sub, role, sid, jti, iat, exp, jkt }, nbf };
    // Oldest first out (a Map keeps insertion order): a token still in use comes back with one more
    // signature check.
    if (verified.size >= VERIFIED_TOKENS_KEPT) verified.delete(verified.keys().next().value as string);
    verified.set(token, known);
    return known;
  }
}

/** The `jkt` of a `cnf` claim: `null` without one, `undefined` when it is there but not a thumbprint. */
function readThumbprint(cnf: unknown): string | null | undefined {
  if (cnf === undefined) return null;
  if (typeof cnf !== 'object' || cnf === null) return undefined;
  const { jkt } = cnf as { jkt?: unknown };
  return typeof jkt === 'string' && THUMBPRINT.test(jkt) ? jkt : undefined;
}
