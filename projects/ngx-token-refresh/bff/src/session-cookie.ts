/**
 * The session cookie's name. `__Host-`: browsers take it only with `Secure`, `Path=/` and no `Domain`,
 * so neither a sibling subdomain nor a plain-http page can set or overwrite it.
 */
export const SESSION_COOKIE = '__Host-bff-session';

/**
 * The `Set-Cookie` of a new session: `HttpOnly` (no script reads it), `SameSite=Strict` (no other
 * site's request carries it, a navigation from one included), and gone with the session's absolute
 * lifetime. Idle expiry is the server's to judge, across all tabs, so it does not shorten the cookie.
 */
export function sessionCookie(sessionId: string, maxAgeMs: number): string {
  const maxAge = Math.max(0, Math.floor(maxAgeMs / 1000));
  return `${SESSION_COOKIE}=${sessionId}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`;
}

/** The `Set-Cookie` that removes the session cookie (same attributes, or browsers keep the old one). */
export function clearedSessionCookie(): string {
  return sessionCookie('', 0);
}

/** The value of cookie `name` in `request`'s `Cookie` header, or `null`; the first one when sent twice. */
export function readCookie(request: Request, name: string): string | null {
  for (const pair of (request.headers.get('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) {
      const value = pair.slice(at + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}
