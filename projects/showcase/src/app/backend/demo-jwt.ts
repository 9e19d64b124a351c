import { decodeBase64UrlText, encodeBase64Url } from './base64-url';
import type { DemoAccount } from './demo-server-state';

/** The claims of a demo access token. Times are seconds since the epoch, as in every JWT. */
export interface DemoJwtClaims {
  /** The account's username. */
  readonly sub: string;
  /** When the token was issued. */
  readonly iat: number;
  /** When the token expires: it is rejected from this second on. */
  readonly exp: number;
  /**
   * The serial from `DemoServerState.issueSerial()`, as a string because RFC 7519 makes `jti` one;
   * `expireAccessTokensNow()` revokes every serial issued so far.
   */
  readonly jti: string;
  /** What the bearer may do: `admin` may write users, `viewer` may only read them. */
  readonly role: DemoAccount['role'];
}

/** Why {@link verifyDemoJwt} rejected a token. */
export type DemoJwtProblem = 'malformed' | 'signature' | 'expired';

/** The outcome of {@link verifyDemoJwt}. */
export type DemoJwtCheck =
  { readonly ok: true; readonly claims: DemoJwtClaims } | { readonly ok: false; readonly problem: DemoJwtProblem };

/** A real JWT is a few hundred characters; anything far longer is not one of ours. */
const MAX_TOKEN_LENGTH = 4096;

/** The one header this backend writes; comparing it whole also rejects `alg: none` and friends. */
const HEADER = encodeBase64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'showcase-demo' }));

/**
 * The fixed "signature" of every demo token. A browser-side mock cannot keep a signing secret (its
 * code is shipped to the browser), so a marker stands in for the HMAC: the backend still rejects any
 * other signature, which is what the showcase needs to show a tampered token failing.
 */
const SIGNATURE = encodeBase64Url('showcase-demo-signature-not-a-secret');

/**
 * Builds a JWT-shaped access token (`header.payload.signature`, base64url) carrying these claims,
 * with the demo's fixed signature. Clients read it like any JWT (`parseJwtClaims`), for display.
 *
 * @usageNotes
 * ```ts
 * const now = Math.floor(Date.now() / 1000);
 * signDemoJwt({ sub: 'ada', iat: now, exp: now + 30, jti: String(state.issueSerial()), role: 'admin' });
 * ```
 */
export function signDemoJwt(claims: DemoJwtClaims): string {
  const { sub, iat, exp, jti, role } = claims;
  return `${HEADER}.${encodeBase64Url(JSON.stringify({ sub, iat, exp, jti, role }))}.${SIGNATURE}`;
}

/**
 * Checks a token from a request: shape, header and signature, claims, then expiry against `nowSeconds`.
 * Revocation (`expireAccessTokensNow`) is the caller's to check, since it lives in `DemoServerState`.
 * Never throws: the token is untrusted input.
 *
 * @usageNotes
 * ```ts
 * const check = verifyDemoJwt(token, Math.floor(Date.now() / 1000));
 * if (!check.ok) return unauthorized(check.problem);
 * ```
 */
export function verifyDemoJwt(token: string, nowSeconds: number): DemoJwtCheck {
  const parts = token.length <= MAX_TOKEN_LENGTH ? token.split('.') : [];
  if (parts.length !== 3) return { ok: false, problem: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  if (header !== HEADER || signature !== SIGNATURE) {
    // Checked before the payload is trusted in any way, as a real verifier would.
    return { ok: false, problem: decodeBase64UrlText(header) === null ? 'malformed' : 'signature' };
  }
  const claims = readClaims(payload);
  if (!claims) return { ok: false, problem: 'malformed' };
  return nowSeconds >= claims.exp ? { ok: false, problem: 'expired' } : { ok: true, claims };
}

function readClaims(payload: string): DemoJwtClaims | null {
  const json = decodeBase64UrlText(payload);
  if (json === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { sub, iat, exp, jti, role } = value as Record<string, unknown>;
  const valid =
    typeof sub === 'string' &&
    sub !== '' &&
    Number.isSafeInteger(iat) &&
    Number.isSafeInteger(exp) &&
    typeof jti === 'string' &&
    /^[1-9]\d{0,14}$/.test(jti) &&
    (role === 'admin' || role === 'viewer');
  return valid ? { sub, iat: iat as number, exp: exp as number, jti, role } : null;
}
