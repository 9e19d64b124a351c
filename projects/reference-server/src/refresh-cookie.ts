import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { readCookieValues } from './read-cookie-values.js';

/**
 * The cookie's name over HTTPS (`Secure`): the `__Secure-` prefix, which browsers accept only from a
 * secure origin and with `Secure`, so no plain-HTTP page (a sibling subdomain over HTTP, or a network
 * attacker's injected answer) can set a cookie of this name. Not `__Host-`: that prefix demands
 * `Path=/`, which would send the refresh token with every API call (and into their logs); the
 * contract's `Path=/auth/refresh` keeps it on this one endpoint. A sibling subdomain over HTTPS can
 * still set a `__Secure-` cookie for the parent domain; {@link readRefreshCookies} handles that.
 */
export const SECURE_REFRESH_COOKIE = '__Secure-refreshToken';
/** The cookie's name with `COOKIE_SECURE=false` (local plain HTTP, where browsers refuse the prefix). */
export const PLAIN_REFRESH_COOKIE = 'refreshToken';
/**
 * The contract's path: the browser sends the cookie to `POST /auth/refresh` and nowhere else, so the
 * refresh token never travels with API calls, and never lands in their logs.
 */
export const REFRESH_COOKIE_PATH = '/auth/refresh';

/**
 * The refresh cookie's name for this `Secure` setting.
 *
 * @example
 * refreshCookieName(true); // '__Secure-refreshToken'
 */
export function refreshCookieName(secure: boolean): string {
  return secure ? SECURE_REFRESH_COOKIE : PLAIN_REFRESH_COOKIE;
}

/**
 * Every value of the refresh cookie in the request, in the order they came (see
 * {@link readCookieValues}: several mean cookie tossing, and the caller picks the genuine one).
 *
 * @example
 * readRefreshCookies(request, { secure: config.cookieSecure }); // ['eyJ...', ...]
 */
export function readRefreshCookies(request: FastifyRequest, options: { readonly secure: boolean }): string[] {
  return readCookieValues(request, refreshCookieName(options.secure));
}

/**
 * Sets the refresh cookie: `HttpOnly` (no script reads it), `Secure` (HTTPS only, unless turned off
 * for local plain HTTP; then the plain name), `SameSite=Strict` (never sent by another site's page),
 * `Path=/auth/refresh`, no `Domain` (host-only), and `Max-Age` = what is left of the session.
 *
 * @example
 * setRefreshCookie(reply, token, { secure: config.cookieSecure, maxAgeSeconds: 604800 });
 */
export function setRefreshCookie(
  reply: FastifyReply,
  token: string,
  options: { readonly secure: boolean; readonly maxAgeSeconds: number },
): void {
  reply.setCookie(refreshCookieName(options.secure), token, {
    ...attributes(options.secure),
    maxAge: Math.max(0, options.maxAgeSeconds),
  });
}

/**
 * Tells the browser to forget the refresh cookie (same name and path, host-only, expired). Harmless
 * when there is none; it cannot reach a cookie another host set for a parent domain.
 *
 * @example
 * clearRefreshCookie(reply, { secure: config.cookieSecure });
 */
export function clearRefreshCookie(reply: FastifyReply, options: { readonly secure: boolean }): void {
  reply.setCookie(refreshCookieName(options.secure), '', {
    ...attributes(options.secure),
    maxAge: 0,
    expires: new Date(0),
  });
}

function attributes(secure: boolean): CookieSerializeOptions {
  return { path: REFRESH_COOKIE_PATH, httpOnly: true, secure, sameSite: 'strict' };
}
