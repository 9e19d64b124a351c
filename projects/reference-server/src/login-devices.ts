import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

import type { FastifyReply, FastifyRequest } from 'fastify';

import { readCookieValues } from './read-cookie-values.js';

/**
 * Trusted devices ("device cookies", OWASP's answer to account lockout): a browser that signed in
 * to an account gets a cookie naming a device id and that account, signed by the server. Its later
 * sign-ins to the same account count on the device's own delays, not the account's, and in a
 * per-address window of the device's own. So an attacker who guesses passwords for an account slows
 * down every untrusted client of it, and nobody who signed in from this browser before: the
 * account's delays cannot lock its owner out of a browser they used before. (A new browser, a private
 * window or a client without cookies is untrusted and waits like anyone.)
 */
export interface LoginDevices {
  /** A new device token for `username`, to set after a successful sign-in. */
  issue(username: string): string;
  /**
   * The first of `tokens` that this server issued for `username`, with its attempt key
   * (`device:<id>`), or `null`: none came, or each is forged, tampered with, or another account's.
   */
  trusted(tokens: readonly string[], username: string): TrustedDevice | null;
}

/** A device cookie that names the account signing in; see {@link LoginDevices.trusted}. */
export interface TrustedDevice {
  /** The cookie's value, set again after a success (the device keeps its id). */
  readonly token: string;
  /** Its sign-in attempts' key: `device:<id>`. */
  readonly attemptKey: string;
}

/** The cookie over HTTPS; a sibling subdomain over plain HTTP cannot set a `__Secure-` cookie. */
const SECURE_COOKIE = '__Secure-loginDevice';
/** With `COOKIE_SECURE=false` (local plain HTTP, where browsers refuse the prefix). */
const PLAIN_COOKIE = 'loginDevice';
/** Sent to the login and nowhere else. */
const COOKIE_PATH = '/auth/login';
/** A year: a device a person signs in from at least yearly stays trusted (browsers cap at 400 days). */
const COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

const DEVICE_ID_BYTES = 16;
const MAC_BYTES = 32;
const TOKEN_BYTES = DEVICE_ID_BYTES + MAC_BYTES;
/** 48 bytes in base64url: 64 characters. */
const SHAPE = /^[A-Za-z0-9_-]{64}$/;
/** A key of its own (HKDF), never the JWT key or the refresh-token key. */
const KEY_INFO = 'reference-server login device v1';
/** Inside the MAC, so that no other HMAC of this key can pass for a device token. */
const DOMAIN_TAG = Buffer.from('login-device/v1\0', 'utf8');

/**
 * Device tokens: `base64url(deviceId (16 random bytes) || HMAC-SHA256(deviceKey, domainTag ||
 * deviceId || SHA-256(username)))`, the key derived from `jwtSecret` through HKDF, so every instance
 * sharing `JWT_SECRET` accepts the others' devices. Nothing is stored: a device is its token.
 *
 * @example
 * const devices = createLoginDevices(config.jwtSecret);
 * devices.trusted([devices.issue('ada')], 'ada'); // { token, attemptKey: 'device:...' }
 */
export function createLoginDevices(jwtSecret: Uint8Array): LoginDevices {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), KEY_INFO, 32));
  const mac = (deviceId: Buffer, username: string) =>
    createHmac('sha256', key).update(DOMAIN_TAG).update(deviceId).update(hashUsername(username)).digest();

  return {
    issue(username) {
      const deviceId = randomBytes(DEVICE_ID_BYTES);
      return Buffer.concat([deviceId, mac(deviceId, username)]).toString('base64url');
    },

    trusted(tokens, username) {
      for (const token of tokens) {
        if (!SHAPE.test(token)) continue;
        const bytes = Buffer.from(token, 'base64url');
        if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) continue;
        const deviceId = bytes.subarray(0, DEVICE_ID_BYTES);
        if (timingSafeEqual(bytes.subarray(DEVICE_ID_BYTES), mac(deviceId, username))) {
          return { token, attemptKey: `device:${deviceId.toString('base64url')}` };
        }
      }
      return null;
    },
  };
}

/**
 * The attempt key of an account: a hash of the name as typed, so a name that belongs to nobody is
 * delayed exactly like a real one (no enumeration) and the database never stores what an attacker typed.
 *
 * @example
 * accountAttemptKey('ada'); // 'account:<64 hex digits>'
 */
export function accountAttemptKey(username: string): string {
  return `account:${hashUsername(username).toString('hex')}`;
}

/**
 * The device cookies of the request, every one of the name (a tossed one cannot hide the genuine one).
 *
 * @example
 * devices.trusted(readLoginDeviceCookies(request, { secure: true }), username);
 */
export function readLoginDeviceCookies(request: FastifyRequest, options: { readonly secure: boolean }): string[] {
  return readCookieValues(request, options.secure ? SECURE_COOKIE : PLAIN_COOKIE);
}

/**
 * Sets the device cookie: `HttpOnly`, `Secure` (unless turned off for local plain HTTP),
 * `SameSite=Strict`, `Path=/auth/login`, host-only, a year.
 *
 * @example
 * setLoginDeviceCookie(reply, devices.issue(username), { secure: config.cookieSecure });
 */
export function setLoginDeviceCookie(reply: FastifyReply, token: string, options: { readonly secure: boolean }): void {
  reply.setCookie(options.secure ? SECURE_COOKIE : PLAIN_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    secure: options.secure,
    sameSite: 'strict',
    maxAge: COOKIE_MAX_AGE_SECONDS,
  });
}

function hashUsername(username: string): Buffer {
  return createHash('sha256').update(username, 'utf8').digest();
}
