import type { FastifyRequest } from 'fastify';

/**
 * Every value of the cookie `name` in the request's `Cookie` header, in the order they came. The
 * cookie parser keeps only the first of several cookies of one name; a second one placed ahead of
 * the server's own (cookie tossing: a sibling subdomain sets one for the parent domain) would then
 * hide it. Reading them all lets the caller pick the genuine one, and know when there were several.
 *
 * @example
 * readCookieValues(request, '__Secure-refreshToken'); // ['eyJ...', ...]
 */
export function readCookieValues(request: FastifyRequest, name: string): string[] {
  const header = request.headers.cookie;
  if (header === undefined) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    let value = pair.slice(equals + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      values.push(value.includes('%') ? decodeURIComponent(value) : value);
    } catch {
      values.push(value);
    }
  }
  return values;
}
