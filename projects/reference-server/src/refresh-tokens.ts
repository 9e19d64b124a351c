import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a refresh token stands for: a family (one login) and a generation (rotations since the login). */
export interface RefreshTokenReference {
  /** The family's id, as {@link createFamilyId} makes them (and as the access token's `sid` carries it). */
  readonly familyId: string;
  /** 0 for the login's token, then one more per rotation. */
  readonly generation: number;
}

/** Derives and checks this server's refresh tokens; from {@link createRefreshTokens}. */
export interface RefreshTokens {
  /** The token of a family at a generation: always the same string for the same pair and key. */
  derive(reference: RefreshTokenReference): string;
  /**
   * The family and generation of a token this server's key made, or `null` for anything else
   * (malformed, truncated, tampered with, made with another key). Never throws, never needs the
   * database: a forgery is refused before it can touch a session.
   */
  parse(token: unknown): RefreshTokenReference | null;
}

const FAMILY_ID_BYTES = 16;
const GENERATION_BYTES = 4;
const MAC_BYTES = 32;
const TOKEN_BYTES = FAMILY_ID_BYTES + GENERATION_BYTES + MAC_BYTES;
/** 52 bytes in base64url without padding: 70 characters. */
const SHAPE = /^[A-Za-z0-9_-]{70}$/;
/**
 * Generations are stored as PostgreSQL `integer`; the one presented must leave room for the `+ 1` of
 * its rotation. Two billion rotations would take decades even at one a second.
 */
const MAX_GENERATION = 2 ** 31 - 2;
/** HKDF's `info`: the refresh key is a key of its own, never the JWT key itself. */
const KEY_INFO = 'reference-server refresh token v1';
/** Inside the MAC, so that no other HMAC this key might ever make can pass for a refresh token. */
const DOMAIN_TAG = Buffer.from('refresh-token/v1\0', 'utf8');

/**
 * Refresh tokens derived, never stored: `base64url(familyId (16 bytes) || generation (uint32,
 * big-endian) || HMAC-SHA256(refreshKey, domainTag || familyId || generation))`, 70 characters. The
 * refresh key comes from `jwtSecret` through HKDF-SHA256, so every instance sharing `JWT_SECRET` derives
 * the same tokens and nothing new needs configuring, while the JWT key itself never signs a refresh
 * token (key separation).
 *
 * Why derive instead of storing random tokens: the database holds nothing secret (a copy of it lets
 * nobody refresh without the key too), a session is one row whatever its rotations, and the server
 * can recompute the live token for an overlap answer without keeping it in clear. The price: whoever
 * has `JWT_SECRET` can make refresh tokens for existing sessions (they could already make access
 * tokens), and changing `JWT_SECRET` ends every session.
 *
 * @example
 * const refreshTokens = createRefreshTokens(config.jwtSecret);
 * const token = refreshTokens.derive({ familyId: createFamilyId(), generation: 0 });
 * refreshTokens.parse(token); // { familyId, generation: 0 }
 */
export function createRefreshTokens(jwtSecret: Uint8Array): RefreshTokens {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), KEY_INFO, 32));
  const mac = (body: Buffer) => createHmac('sha256', key).update(DOMAIN_TAG).update(body).digest();

  return {
    derive({ familyId, generation }) {
      const id = Buffer.from(familyId, 'base64url');
      if (id.length !== FAMILY_ID_BYTES || id.toString('base64url') !== familyId) {
        throw new RangeError(`not a family id: ${familyId}`);
      }
      // Any uint32, the format's range; `parse` is what refuses generations the database cannot hold.
      if (!Number.isInteger(generation) || generation < 0 || generation > 0xffff_ffff) {
        throw new RangeError(`not a generation: ${generation}`);
      }
      const body = Buffer.alloc(FAMILY_ID_BYTES + GENERATION_BYTES);
      id.copy(body);
      body.writeUInt32BE(generation, FAMILY_ID_BYTES);
      return Buffer.concat([body, mac(body)]).toString('base64url');
    },

    parse(token) {
      if (typeof token !== 'string' || !SHAPE.test(token)) return null;
      const bytes = Buffer.from(token, 'base64url');
      // The last character carries 4 bits beyond the 52 bytes; only the canonical spelling (those bits
      // zero) is a token, so no two strings stand for one token.
      if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
      const body = bytes.subarray(0, FAMILY_ID_BYTES + GENERATION_BYTES);
      // Constant time, so that timing tells a forger nothing about how much of a guessed MAC is right.
      if (!timingSafeEqual(bytes.subarray(FAMILY_ID_BYTES + GENERATION_BYTES), mac(body))) return null;
      const generation = body.readUInt32BE(FAMILY_ID_BYTES);
      if (generation > MAX_GENERATION) return null;
      return { familyId: body.subarray(0, FAMILY_ID_BYTES).toString('base64url'), generation };
    },
  };
}

/**
 * A new family id: 128 random bits, base64url (22 characters). The refresh token carries these 16
 * bytes, so this is the only form a family id may have.
 *
 * @example
 * await repository.createRefreshFamily({ familyId: createFamilyId(), username, now, expiresAt });
 */
export function createFamilyId(): string {
  return randomBytes(FAMILY_ID_BYTES).toString('base64url');
}
