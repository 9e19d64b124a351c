import { base64url } from './base64url';

/**
 * A new session id, the value of the session cookie: 32 random bytes (256 bits, more than the 128 the
 * OWASP session guidance asks for) in base64url, 43 characters. A new one at every sign-in, so that an
 * id an attacker planted before the sign-in never becomes a signed-in session (session fixation).
 */
export function createSessionId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}
