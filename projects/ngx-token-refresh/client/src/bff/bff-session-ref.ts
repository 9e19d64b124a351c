import type { Signal } from '@angular/core';

/**
 * The signed-in person as the backend for frontend describes them (`GET <basePath>/session`): the
 * subject `sub` and the ID-token claims the BFF lets through (`name`, `email`, ... as it is
 * configured). Claims only: the tokens stay on the server.
 */
export interface BffUser {
  /** The subject: who signed in, as the identity provider names them. */
  readonly sub: string;
  /** Any other claim the BFF passes on. */
  readonly [claim: string]: unknown;
}

/**
 * Whether this tab has a session with the BFF: `'unknown'` until the BFF has answered (or when it
 * could not be asked), `'signedIn'` or `'signedOut'`.
 */
export type BffSessionStatus = 'unknown' | 'signedIn' | 'signedOut';

/**
 * This application's session with its backend for frontend, from {@link injectBffSession}: who is
 * signed in, and the ways in and out.
 */
export interface BffSessionRef {
  /** The signed-in user's claims, or `null` (signed out, or not known yet). */
  readonly user: Signal<BffUser | null>;
  /** `'unknown'`, `'signedIn'` or `'signedOut'`: see {@link BffSessionStatus}. */
  readonly status: Signal<BffSessionStatus>;
  /**
   * Leaves for the sign-in: a navigation to `<basePath>/login?returnUrl=...`, which comes back to
   * `returnUrl` signed in. `returnUrl` must be a path of this site (`'/account?tab=2'`); default: the
   * current page. Pass a value that comes from outside (a query parameter) through `safeReturnUrl`
   * first. Does nothing on the server.
   *
   * @throws `InvalidOptions` when `returnUrl` is not a path of this site (`//evil.example`, `https://...`).
   */
  signIn(returnUrl?: string): void;
  /**
   * Signs out: `POST <basePath>/logout` (the BFF ends the session and revokes its tokens), then this
   * tab is signed out, the other tabs are told, and the browser goes to the identity provider's
   * `endSessionUrl` to end the sign-in there too. Resolves once that navigation has started.
   * Rejects with an `ApiError` when the BFF could not sign out (no network, a 5xx): the session is
   * then kept. Does nothing on the server.
   */
  signOut(): Promise<void>;
  /**
   * Asks the BFF again who is signed in (`GET <basePath>/session`), e.g. after a sign-in in another
   * tab. Resolves when `user` and `status` hold its answer; rejects with an `ApiError` when it could
   * not answer (`NetworkError`, a 5xx, `InvalidResponse` for an answer that is not a session), and
   * `status` then keeps its value.
   */
  reload(): Promise<void>;
}
