/** `Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1), the token visible ASCII. */
const BEARER = /^Bearer +([\x21-\x7e]+)$/i;

/**
 * The token of an `Authorization: Bearer <token>` header value: `null` when there is no header or
 * it is blank (no credentials: answer `WWW-Authenticate: Bearer`), `''` when it is there but not a
 * Bearer token (another scheme, no token, spaces or non-ASCII in it: `error="invalid_token"`).
 * Leading and trailing white space is ignored. The token itself is not checked here.
 *
 * @example
 * readBearerToken('Bearer eyJhbGciOi...'); // 'eyJhbGciOi...'
 * readBearerToken(undefined); // null
 * readBearerToken('Basic YWRhOmxvdmVsYWNl'); // ''
 */
export function readBearerToken(header: string | null | undefined): string | null {
  if (header === null || header === undefined || header.trim() === '') return null;
  return BEARER.exec(header.trim())?.[1] ?? '';
}
