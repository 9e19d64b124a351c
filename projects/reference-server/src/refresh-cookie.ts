import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';

/** The cookie's name, as the contract says. */
export const REFRESH_COOKIE = 'refreshToken';
/**
 * The contract's path: the browser sends the cookie to `POST /auth/refresh` and nowhere else, so the
 * refresh token never travels with API calls, and never lands in their logs.
 */
export const REFRESH_COOKIE_PATH = '/auth/refresh';

/**
 * Sets the refresh cookie: `HttpOnly` (no script reads it), `Secure` (HTTPS only, unless turned off
 * for local plain HTTP), `SameSite=Strict` (never sent by another site's page, which is the CSRF
 * defence of the refresh endpoint), `Path=/auth/refresh`, and `Max-Age` = what is left of the session.
 *
 * @example
 * setRefreshCookie(reply, token, { secure: config.cookieSecure, maxAgeSeconds: 604800 });
 */
export function setRefreshCookie(
  reply: FastifyReply,
  token: string,
  options: { readonly secure: boolean; readonly maxAgeSeconds: number },
): void {
  reply.setCookie(REFRESH_COOKIE, token, { ...attributes(options.secure), maxAge: Math.max(0, options.maxAgeSeconds) });
}

/**
 * Tells the browser to forget the refresh cookie (same name and path, expired). Harmless when there is none.
 *
 * @example
 * clearRefreshCookie(reply, { secure: config.cookieSecure });
 */
export function clearRefreshCookie(reply: FastifyReply, options: { readonly secure: boolean }): void {
  reply.setCookie(REFRESH_COOKIE, '', { ...attributes(options.secure), maxAge: 0, expires: new Date(0) });
}

function attributes(secure: boolean): CookieSerializeOptions {
  return { path: REFRESH_COOKIE_PATH, httpOnly: true, secure, sameSite: 'strict' };
}
