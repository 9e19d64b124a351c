import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes in base64url: 43 characters. */
const SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * A new refresh token: 256 random bits (base64url). Only its {@link hashRefreshToken} is stored, so
 * the database alone never lets anybody refresh.
 *
 * @example
 * const token = createRefreshToken();
 */
export function createRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The stored form of a refresh token: SHA-256, hex. A fast hash is right here (unlike passwords):
 * the token has 256 bits of entropy, so there is nothing to guess.
 *
 * @example
 * await repository.rotateRefreshToken(hashRefreshToken(presented), hashRefreshToken(next), now);
 */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether `value` could be a token of {@link createRefreshToken} (checked before touching the database). */
export function isRefreshTokenShape(value: unknown): value is string {
  return typeof value === 'string' && SHAPE.test(value);
}

/** A random id (family ids): 128 bits, base64url. */
export function createRandomId(): string {
  return randomBytes(16).toString('base64url');
}
