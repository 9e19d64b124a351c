/**
 * Encodes text (as UTF-8) or bytes in base64url without padding, the alphabet of JWT segments.
 *
 * @usageNotes
 * ```ts
 * encodeBase64Url('{"alg":"HS256"}'); // 'eyJhbGciOiJIUzI1NiJ9'
 * ```
 */
export function encodeBase64Url(input: string | Uint8Array): string {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * Decodes a base64url segment to text, or returns `null` when it is not base64url or not UTF-8:
 * a token from the request is untrusted input, so decoding never throws.
 *
 * @usageNotes
 * ```ts
 * decodeBase64UrlText('eyJhbGciOiJIUzI1NiJ9'); // '{"alg":"HS256"}'
 * ```
 */
export function decodeBase64UrlText(segment: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(segment) || segment.length % 4 === 1) return null;
  try {
    const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
  } catch {
    return null;
  }
}
