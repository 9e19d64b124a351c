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

/** What became of a refresh token presented for rotation. */
export type RotationResult =
  /** It was valid: it is used up now, and `newTokenHash` is the family's live token. */
  | {
      readonly outcome: 'rotated';
      readonly familyId: string;
      readonly username: string;
      readonly role: Role;
      readonly expiresAt: Date;
    }
  /** It had been rotated before: a copy is in somebody else's hands, and the family is revoked now. */
  | { readonly outcome: 'reused'; readonly familyId: string }
  /** Unknown, expired, or its family was revoked. */
  | { readonly outcome: 'invalid' };

/** Thrown by user writes when another user has the e-mail address (ignoring case). */
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

  /** Starts a family (a login) with its first token. */
  createRefreshFamily(family: {
    readonly familyId: string;
    readonly username: string;
    readonly tokenHash: string;
    readonly now: Date;
    readonly expiresAt: Date;
  }): Promise<void>;
  /**
   * Uses up the token with `tokenHash` and gives its family `newTokenHash`, in one atomic step; or,
   * when the token was used before, revokes its family (reuse detection).
   */
  rotateRefreshToken(tokenHash: string, newTokenHash: string, now: Date): Promise<RotationResult>;
  /** Revokes a family (logout); unknown ids are ignored. */
  revokeRefreshFamily(familyId: string, now: Date): Promise<void>;
  /** The family of a token, used or not, or `null`. */
  findRefreshFamilyId(tokenHash: string): Promise<string | null>;
  /** Deletes the families (and their tokens) that ended before `now`. */
  deleteExpiredRefreshFamilies(now: Date): Promise<number>;

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
