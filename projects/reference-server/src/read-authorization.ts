/** `Bearer <token>` or `DPoP <token>`: schemes are case-insensitive (RFC 9110 §11.1), the token visible ASCII. */
const CREDENTIALS = /^(Bearer|DPoP) +([\x21-\x7e]+)$/i;

/** The credentials of an `Authorization` header, as {@link readAuthorization} reads them. */
export interface Authorization {
  /** `null`: the header is there but holds neither a Bearer nor a DPoP token. */
  readonly scheme: 'Bearer' | 'DPoP' | null;
  /** The access token; `''` when `scheme` is `null`. */
  readonly token: string;
}

/**
 * The scheme and token of an `Authorization` header when DPoP is on (`#contract`'s `readBearerToken`
 * reads `Bearer` alone, for DPOP=off): `null` when there is no header or it is blank (no
 * credentials), `{ scheme: null, token: '' }` when it holds something else. White space around the
 * value is ignored; the token itself is not checked here.
 *
 * @example
 * readAuthorization('DPoP eyJhbGciOi...'); // { scheme: 'DPoP', token: 'eyJhbGciOi...' }
 * readAuthorization('Basic YWRhOmxvdmVsYWNl'); // { scheme: null, token: '' }
 */
export function readAuthorization(header: string | null | undefined): Authorization | null {
  if (header === null || header === undefined || header.trim() === '') return null;
  const match = CREDENTIALS.exec(header.trim());
  if (!match) return { scheme: null, token: '' };
  const [, scheme = '', token = ''] = match;
  return { scheme: scheme.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token };
}
