import { base64url } from './base64url';
import { isSameOriginPath } from './is-same-origin-path';
import { readCookie } from './session-cookie';

/**
 * A sign-in between `<basePath>/login` and `<basePath>/callback`: what the callback checks the
 * provider's answer against, and where the browser goes afterwards.
 */
export interface LoginAttempt {
  /** The `state` sent: the callback's must be the same (login CSRF). */
  readonly state: string;
  /** The `nonce` sent: the ID token's must be the same (a replayed ID token). */
  readonly nonce: string;
  /** PKCE's verifier of the challenge sent: only this browser's code can be exchanged. */
  readonly codeVerifier: string;
  /** The path of this site to go back to. */
  readonly returnUrl: string;
}

/**
 * The login cookie's name. `__Host-` as the session cookie, but `SameSite=Lax`: the callback is a
 * navigation from the provider's site (often after a form POST there), which a `Strict` cookie would
 * miss; `Lax` cookies go along with a top-level GET navigation from another site.
 */
export const LOGIN_COOKIE = '__Host-bff-login';

/** How long a sign-in may take at the provider (typing a password, a second factor). */
const LOGIN_MAX_AGE_SECONDS = 600;

/** The `Set-Cookie` that keeps `attempt` in the browser until the callback. */
export function loginCookie(attempt: LoginAttempt): string {
  const value = base64url(new TextEncoder().encode(JSON.stringify(attempt)));
  return `${LOGIN_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${LOGIN_MAX_AGE_SECONDS}`;
}

/** The `Set-Cookie` that removes the login cookie: a sign-in's secrets are good for one callback. */
export function clearedLoginCookie(): string {
  return `${LOGIN_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
}

/** The sign-in in `request`'s login cookie, or `null` when there is none or it is not one of ours. */
export function readLoginAttempt(request: Request): LoginAttempt | null {
  const value = readCookie(request, LOGIN_COOKIE);
  if (value === null) return null;
  try {
    const binary = atob(value.replaceAll('-', '+').replaceAll('_', '/'));
    const text = new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    const attempt = JSON.parse(text) as Partial<Record<keyof LoginAttempt, unknown>> | null;
    const { state, nonce, codeVerifier, returnUrl } = attempt ?? {};
    if (
      [state, nonce, codeVerifier, returnUrl].every((field) => typeof field === 'string' && field !== '') &&
      isSameOriginPath(returnUrl as string)
    ) {
      return { state, nonce, codeVerifier, returnUrl } as LoginAttempt;
    }
  } catch {
    // Not ours (or cut short): the same as no sign-in at all.
  }
  return null;
}
