/** A user, the resource of the users API. */
export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

/** The fields of a user a client writes. */
export type UserFields = Omit<User, 'id'>;

/** Who may sign in. */
export interface Account {
  readonly username: string;
  readonly passwordHash: string;
  readonly role: Role;
}

/** `admin` may write users; `viewer` may only read them. */
export type Role = 'admin' | 'viewer';

/** The session a refresh answers for: whose it is, and the refresh token that is live now. */
export interface LiveRefreshFamily {
  readonly familyId: string;
  /** The live generation: the refresh token to hand out is the one of this generation. */
  readonly generation: number;
  readonly username: string;
  /** Read at every refresh, so a changed role takes effect within one access-token lifetime. */
  readonly role: Role;
  /** The end of the session (the login's time plus the refresh lifetime); rotation does not move it. */
  readonly expiresAt: Date;
  /** The thumbprint of the DPoP key the session is bound to (its login's proof), or `null`: not bound. */
  readonly jkt: string | null;
}

/**
 * The DPoP key a refresh proved, for {@link Repository.rotateRefreshToken}: `jkt` is the thumbprint of
 * the proof's key (`null`: no proof came). A family bound to a key needs that key; with
 * `requireBound` (DPOP=required), a family bound to none is refused too.
 */
export interface ProvenKey {
  readonly jkt: string | null;
  readonly requireBound: boolean;
}

/**
 * Whether a request that proved `key` may use a family bound to `jkt` (`null`: bound to no key): the
 * family's own key, or any (or no) key for a family bound to none unless `requireBound`.
 *
 * @example
 * provesKey(family.jkt, { jkt: proof?.jkt ?? null, requireBound: config.dpop === 'required' });
 */
export function provesKey(jkt: string | null, key: ProvenKey): boolean {
  return jkt === null ? !key.requireBound : jkt === key.jkt;
}

/** What became of a refresh token presented for rotation. */
export type RotationResult =
  /** It was the live one: the family moved on to the next generation, which is live now. */
  | ({ readonly outcome: 'rotated' } & LiveRefreshFamily)
  /**
   * Presented within the overlap window of the live token's rotation, and it was the live one's
   * immediate predecessor (another tab, a retry after a lost answer) or the live one itself (which is
   * not rotated again within the window): nothing changed, `generation` is the live one to hand out again.
   */
  | ({ readonly outcome: 'reissued' } & LiveRefreshFamily)
  /**
   * It was older than that, or the predecessor after the window: a copy is in somebody else's hands,
   * and the family is revoked now (reuse detection).
   */
  | { readonly outcome: 'reused'; readonly familyId: string }
  /** Unknown family, expired, revoked, or a generation the family never reached. */
  | { readonly outcome: 'invalid' }
  /**
   * A genuine, usable token, but the refresh did not prove the key the family is bound to (another
   * key, or no proof), or the family is bound to none where one is required: nothing changed, nothing
   * revoked (whoever holds a copy of the token without the key can neither use nor end the session).
   */
  | { readonly outcome: 'keyMismatch'; readonly familyId: string };

/** A rate-limit window after one more hit; see {@link Repository.countHit}. */
export interface RateLimitWindow {
  /** Hits in the window, this one included. */
  readonly hits: number;
  /** When the window ends and counting starts again. */
  readonly endsAt: Date;
}

/** The growing delays of sign-in attempts; see {@link Repository.reserveLoginAttempt}. */
export interface LoginDelayPolicy {
  /** Attempts answered without any delay; from the next on, each waits twice as long as the last. */
  readonly freeAttempts: number;
  /** The longest wait between two attempts, in seconds. */
  readonly maxDelaySeconds: number;
  /** Attempts older than this are forgotten, in seconds since the last one. */
  readonly forgetAfterSeconds: number;
}

/** Whether a sign-in attempt may check the password now; see {@link Repository.reserveLoginAttempt}. */
export type LoginAttemptReservation =
  | { readonly allowed: true }
  /** Too soon after the last attempt: no password is checked until `retryAt`. */
  | { readonly allowed: false; readonly retryAt: Date };

/** Thrown by user writes when another user has the e-mail address (the same `emailKey`: ignoring case and Unicode forms). */
export class EmailTakenError extends Error {
  constructor() {
    super('The e-mail address is already taken.');
    this.name = 'EmailTakenError';
  }
}

/**
 * The server's storage, small on purpose: the HTTP layer knows nothing of SQL, and the one SQL
 * implementation (`createSqlRepository`) runs on PGlite and PostgreSQL alike. Every refresh-token
 * method is atomic, so concurrent requests (or instances) cannot both rotate one token.
 */
export interface Repository {
  findAccount(username: string): Promise<Account | null>;

  /**
   * Starts a family (a login) at generation 0, bound to the DPoP key `jkt` when the login proved one.
   * Nothing of the token is stored: it is derived.
   */
  createRefreshFamily(family: {
    readonly familyId: string;
    readonly username: string;
    readonly now: Date;
    readonly expiresAt: Date;
    readonly jkt?: string | null;
  }): Promise<void>;
  /**
   * Answers the token of `familyId` at `generation`: when the live generation was reached less than
   * `reuseIntervalSeconds` ago (0: never), reissues the live one for the live generation and for its
   * immediate predecessor, rotating nothing; otherwise rotates the family when that is its live
   * generation; otherwise revokes the family when it is older (reuse detection). So a family rotates
   * at most once per window, and a token two generations old was replaced more than a window ago.
   * Safe against concurrent calls, from any number of instances: one presentation of a token rotates,
   * at most. With `key` (DPoP on), a family whose key the refresh did not prove is answered
   * `keyMismatch` before any of that, changing nothing; without it (DPOP=off), keys are not looked at.
   */
  rotateRefreshToken(presented: {
    readonly familyId: string;
    readonly generation: number;
    readonly now: Date;
    readonly reuseIntervalSeconds: number;
    readonly key?: ProvenKey | null;
  }): Promise<RotationResult>;
  /**
   * The DPoP key a family is bound to (`jkt` `null`: none), whatever its state (live, revoked or
   * expired); `null` when there is no such family. A family's key never changes after its login.
   */
  findRefreshFamilyKey(familyId: string): Promise<{ readonly jkt: string | null } | null>;
  /** Revokes a family (logout); unknown ids are ignored. */
  revokeRefreshFamily(familyId: string, now: Date): Promise<void>;
  /** Deletes the families that ended before `now`. */
  deleteExpiredRefreshFamilies(now: Date): Promise<number>;

  /**
   * Records a DPoP proof by `key` (a hash of its key's thumbprint and its `jti`) until `expiresAt`:
   * `true` the first time, `false` when the key was recorded already (a replay), atomically, so of
   * two instances recording one proof at once exactly one gets `true`.
   */
  recordDpopProof(key: string, expiresAt: Date): Promise<boolean>;
  /** Deletes the recorded proofs that expired before `now`. */
  deleteExpiredDpopProofs(now: Date): Promise<void>;

  /**
   * Counts one hit of `key` in its fixed window of `windowMs` (a new window when the last one ended),
   * atomically: every instance sharing the database counts into the same window.
   */
  countHit(key: string, now: Date, windowMs: number): Promise<RateLimitWindow>;
  /**
   * Takes one sign-in attempt for `key` (an account, or a trusted device), before its password is
   * checked, so that concurrent attempts (from any instance) cannot all slip through one free slot:
   * refused while the delay the previous attempt set runs; otherwise counted, and the next attempt
   * delayed by `policy`. {@link clearLoginAttempts} undoes it when the password was right.
   */
  reserveLoginAttempt(key: string, now: Date, policy: LoginDelayPolicy): Promise<LoginAttemptReservation>;
  /** Forgets `key`'s attempts (a successful sign-in). */
  clearLoginAttempts(key: string): Promise<void>;
  /** Deletes rate-limit windows that ended and sign-in attempts forgotten by `attemptsForgottenBefore`. */
  deleteExpiredLimits(now: Date, attemptsForgottenBefore: Date): Promise<void>;

  /** Users `offset` to `offset + limit` in id order (the list's stable order); all without `limit`. */
  listUsers(page?: { readonly offset: number; readonly limit: number }): Promise<User[]>;
  countUsers(): Promise<number>;
  getUser(id: number): Promise<User | null>;
  /** @throws EmailTakenError */
  createUser(fields: UserFields): Promise<User>;
  /** Sets the given fields; `null` when there is no such user. @throws EmailTakenError */
  updateUser(id: number, fields: Partial<UserFields>): Promise<User | null>;
  /** Whether there was such a user. */
  deleteUser(id: number): Promise<boolean>;

  /**
   * Inserts the accounts and users when the database has no account yet (its first start), in one
   * transaction, so concurrent first starts seed once. Whether it seeded.
   */
  seed(accounts: readonly Account[], users: readonly UserFields[]): Promise<boolean>;

  close(): Promise<void>;
}
