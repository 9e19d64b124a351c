import { randomUUID } from 'node:crypto';

import { SignJWT, errors, jwtVerify } from 'jose';

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
}

/** Why a token was rejected: `expired` (an otherwise good token whose time ran out) or `invalid`. */
export type AccessTokenProblem = 'expired' | 'invalid';

/** Signs and verifies this server's access tokens; from {@link createAccessTokens}. */
export interface AccessTokens {
  /** A new signed token for this account and family, valid for the configured lifetime. */
  issue(subject: { readonly username: string; readonly role: Role; readonly familyId: string }): Promise<string>;
  /**
   * The claims of a token, or why it is rejected. `allowExpired` accepts a genuine token whose time
   * ran out (for logout, where refusing one would only keep a session alive). Never throws.
   */
  verify(
    token: string,
    options?: { readonly allowExpired?: boolean },
  ): Promise<{ ok: true; claims: AccessTokenClaims } | { ok: false; problem: AccessTokenProblem }>;
}

/** The one algorithm issued and accepted: pinning it rejects `alg: none` and key-confusion tricks. */
const ALGORITHM = 'HS256';
const ISSUER = 'ngx-token-refresh-reference-server';
const AUDIENCE = 'ngx-token-refresh-api';
/** A token of ours is a few hundred characters; anything far longer is refused before parsing. */
const MAX_TOKEN_LENGTH = 4096;

/**
 * Access tokens as JWTs (HS256 with `secret`), carrying `sub`, `role`, `sid`, `jti`, `iat`, `exp`,
 * `iss` and `aud`. Verification pins the algorithm, the issuer and the audience and requires every
 * claim; `now` is the clock (milliseconds), injectable for tests.
 *
 * @example
 * const tokens = createAccessTokens({ secret, ttlSeconds: 900, now: Date.now });
 * const token = await tokens.issue({ username: 'ada', role: 'admin', familyId });
 */
export function createAccessTokens(options: {
  readonly secret: Uint8Array;
  readonly ttlSeconds: number;
  readonly now: () => number;
  /** Accepted age of an expired token for `allowExpired`, in seconds (the refresh lifetime). */
  readonly expiredGraceSeconds: number;
}): AccessTokens {
  const { secret, ttlSeconds, now, expiredGraceSeconds } = options;
  return {
    issue({ username, role, familyId }) {
      const iat = Math.floor(now() / 1000);
      return new SignJWT({ role, sid: familyId })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(username)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .setJti(randomUUID())
        .sign(secret);
    },

    async verify(token, { allowExpired = false } = {}) {
      if (token.length > MAX_TOKEN_LENGTH) return { ok: false, problem: 'invalid' };
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          requiredClaims: ['sub', 'exp', 'iat', 'jti'],
          currentDate: new Date(now()),
          clockTolerance: allowExpired ? expiredGraceSeconds : 0,
        });
        const { sub, role, sid, jti, iat, exp } = payload;
        const valid =
          typeof sub === 'string' &&
          (role === 'admin' || role === 'viewer') &&
          typeof sid === 'string' &&
          typeof jti === 'string' &&
          typeof iat === 'number' &&
          typeof exp === 'number';
        return valid ? { ok: true, claims: { sub, role, sid, jti, iat, exp } } : { ok: false, problem: 'invalid' };
      } catch (error) {
        return { ok: false, problem: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
      }
    },
  };
}
