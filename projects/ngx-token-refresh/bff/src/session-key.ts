import { base64url } from './base64url';
import { BffError } from './bff-error';

/** 43 characters of base64url: a SHA-256 digest without padding. */
const SESSION_KEY = /^[A-Za-z0-9_-]{43}$/;

/**
 * The store's key of a session id (the cookie's value): its SHA-256, in base64url. Stores keep only this
 * key, so whoever reads the store (a dump, a backup, a log of its statements) cannot turn a row into a
 * cookie that signs in. Web Crypto, which Node has as a global, so the entry needs no `node:` module.
 */
export async function sessionKey(sessionId: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(sessionId))));
}

/** Whether `key` has the shape {@link sessionKey} gives (43 characters of base64url). */
export const isSessionKey = (key: unknown): key is string => typeof key === 'string' && SESSION_KEY.test(key);

/**
 * Throws `InvalidSession` unless `key` has the shape of a session key: a store given the cookie's value
 * itself would keep live cookies.
 */
export function assertSessionKey(key: unknown, where: string): asserts key is string {
  if (!isSessionKey(key)) {
    throw new BffError(
      'InvalidSession',
      `${where} got a key that is not 43 characters of base64url (the SHA-256 of the session cookie's value)`,
    );
  }
}
