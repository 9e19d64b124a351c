import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { readCookieValues } from './read-cookie-values.js';

/** Where the refresh cookie goes, and how: from the configuration (`COOKIE_SECURE`, `REFRESH_COOKIE_PATH`). */
export interface RefreshCookieOptions {
  /** The `Secure` attribute (and a prefixed name); `false` only for local plain HTTP. */
  readonly secure: boolean;
  /** The `Path` attribute: `/auth/refresh` (the contract's default), or `/` for apps that render on the server. */
  readonly path: string;
}

/**
 * The cookie's name over HTTPS (`Secure`) with the contract's path: the `__Secure-` prefix, which
 * browsers accept only from a secure origin and with `Secure`, so no plain-HTTP page (a sibling
 * subdomain over HTTP, or a network attacker's injected answer) can set a cookie of this name. Not
 * `__Host-`: that prefix demands `Path=/`, which would send the refresh token with every API call
 * (and into their logs); the contract's `Path=/auth/refresh` keeps it on this one endpoint. A
 * sibling subdomain over HTTPS can still set a `__Secure-` cookie for the parent domain;
 * {@link readRefreshCookies} handles that.
 */
export const SECURE_REFRESH_COOKIE = '__Secure-refreshToken';
/**
 * The cookie's name over HTTPS with `Path=/` (apps that render on the server, whose page requests
 * must carry it): `Path=/` allows the stronger `__Host-` prefix, which no other host, sibling
 * subdomains over HTTPS included, can set.
 */
export const HOST_REFRESH_COOKIE = '__Host-refreshToken';
/** The cookie's name with `COOKIE_SECURE=false` (local plain HTTP, where browsers refuse the prefixes). */
export const PLAIN_REFRESH_COOKIE = 'refreshToken';
/**
 * The contract's path: the browser sends the cookie to `POST /auth/refresh` and nowhere else, so the
 * refresh token never travels with API calls, and never lands in their logs.
 */
export const REFRESH_COOKIE_PATH = '/auth/refresh';

/**
 * The refresh cookie's name for these settings.
 *
 * @example
 * refreshCookieName({ secure: true, path: '/auth/refresh' }); // '__Secure-refreshToken'
 * refreshCookieName({ secure: true, path: '/' }); // '__Host-refreshToken'
 */
export function refreshCookieName(options: RefreshCookieOptions): string {
  if (!options.secure) return PLAIN_REFRESH_COOKIE;
  return options.path === '/' ? HOST_REFRESH_COOKIE : SECURE_REFRESH_COOKIE;
}

/**
 * Every value of the refresh cookie in the request, in the order they came (see
 * {@link readCookieValues}: several mean cookie tossing, and the caller picks the genuine one).
 *
 * @example
 * readRefreshCookies(request, { secure: true, path: '/auth/refresh' }); // ['eyJ...', ...]
 */
export function readRefreshCookies(request: FastifyRequest, options: RefreshCookieOptions): string[] {
  return readCookieValues(request, refreshCookieName(options));
}

/**
 * Sets the refresh cookie: `HttpOnly` (no script reads it), `Secure` (HTTPS only, unless turned off
 * for local plain HTTP; then the plain name), `SameSite=Strict` (never sent by another site's page),
 * the configured `Path` (`/auth/refresh` by default), no `Domain` (host-only), and `Max-Age` = what is
 * left of the session.
 *
 * @example
 * setRefreshCookie(reply, token, { secure: true, path: '/auth/refresh', maxAgeSeconds: 604800 });
 */
export function setRefreshCookie(
  reply: FastifyReply,
  token: string,
  options: RefreshCookieOptions & { readonly maxAgeSeconds: number },
): void {
  reply.setCookie(refreshCookieName(options), token, {
    ...attributes(options),
    maxAge: Math.max(0, options.maxAgeSeconds),
  });
}

/**
 * Tells the browser to forget the refresh cookie (same name and path, host-only, expired). Harmless
 * when there is none; it cannot reach a cookie another host set for a parent domain.
 *
 * @example
 * clearRefreshCookie(reply, { secure: true, path: '/auth/refresh' });
 */
export function clearRefreshCookie(reply: FastifyReply, options: RefreshCookieOptions): void {
  reply.setCookie(refreshCookieName(options), '', {
    ...attributes(options),
    maxAge: 0,
    expires: new Date(0),
  });
}

function attributes({ secure, path }: RefreshCookieOptions): CookieSerializeOptions {
  return { path, httpOnly: true, secure, sameSite: 'strict' };
}
