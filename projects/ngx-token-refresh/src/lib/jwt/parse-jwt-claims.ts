/** The registered claims of a JWT this library reads, plus whatever else the payload holds. */
export interface JwtClaims {
  /** Subject: whom the token is about. */
  readonly sub?: string;
  /** Expiry, in seconds since the epoch. */
  readonly exp?: number;
  /** Issue time, in seconds since the epoch. */
  readonly iat?: number;
  readonly [claim: string]: unknown;
}

/** A JWT payload is a few hundred bytes; anything far larger is not one worth decoding. */
const MAX_TOKEN_LENGTH = 16_384;

/**
 * Reads the payload of a JWT (`header.payload.signature`) **without verifying it**: the client cannot
 * verify a token, so use the claims for display and timing only, never for decisions the server must
 * make. Returns `null` for anything that is not a well-formed JWT with a JSON object payload; never
 * throws.
 *
 * @usageNotes
 * ```ts
 * const exp = parseJwtClaims(token)?.exp; // seconds since the epoch, or undefined
 * ```
 */
export function parseJwtClaims(token: unknown): JwtClaims | null {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
  const parts = token.split('.');
  const payload = parts[1];
  if (parts.length !== 3 || !payload || !/^[A-Za-z0-9_-]+$/.test(payload)) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    const json = new TextDecoder('utf-8', { fatal: true }).decode(
      Uint8Array.from(binary, (char) => char.charCodeAt(0)),
    );
    const claims: unknown = JSON.parse(json);
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as JwtClaims) : null;
  } catch {
    return null;
  }
}
