import { encodeBase64Url } from './base64-url';

/**
 * Mints a refresh token: 32 random bytes from `crypto.getRandomValues` (base64url), followed by its
 * expiry in seconds since the epoch. The expiry travels inside the value the way a real server keeps
 * it next to the token in its database; the backend only accepts a value equal, as a whole, to the
 * one it holds, so editing the suffix makes the token unknown rather than longer-lived.
 *
 * @usageNotes
 * ```ts
 * state.setRefreshToken(createDemoRefreshToken(nowSeconds + state.refreshTokenLifetimeSeconds()), 'ada');
 * ```
 */
export function createDemoRefreshToken(expiresAtSeconds: number): string {
  return `${encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))}.${expiresAtSeconds}`;
}

/**
 * The expiry (seconds since the epoch) written into a refresh token by {@link createDemoRefreshToken},
 * or `null` when the value has none.
 *
 * @usageNotes
 * ```ts
 * const expiresAt = readDemoRefreshTokenExpiry(token);
 * if (expiresAt === null || nowSeconds >= expiresAt) return invalidRefreshToken('has expired');
 * ```
 */
export function readDemoRefreshTokenExpiry(token: string): number | null {
  const match = /\.(\d{1,15})$/.exec(token);
  return match ? Number(match[1]) : null;
}
