/**
 * Claims of a test token. `exp` and `iat` are seconds since the epoch, as in a real JWT.
 */
export interface TestJwtClaims {
  readonly sub?: string;
  readonly exp?: number;
  readonly iat?: number;
  readonly [claim: string]: unknown;
}

/**
 * Builds an unsigned, JWT-shaped token (`header.payload.signature`, base64url) for tests: it decodes
 * like a real one but no server accepts it. Defaults: `sub: 'test-user'`, issued now, expiring in
 * 15 minutes.
 *
 * @usageNotes
 * ```ts
 * const expired = createTestJwt({ exp: Math.floor(Date.now() / 1000) - 1 });
 * httpTesting.expectOne('/auth/refresh').flush({ accessToken: createTestJwt() });
 * ```
 */
export function createTestJwt(claims: TestJwtClaims = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: 'none', typ: 'JWT' };
  const payload = { sub: 'test-user', iat: now, exp: now + 15 * 60, ...claims };
  return `${base64Url(JSON.stringify(header))}.${base64Url(JSON.stringify(payload))}.test-signature`;
}

function base64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
