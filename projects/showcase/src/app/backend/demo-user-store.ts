import { emailKey } from '#contract';

/** A user as the demo backend stores and sends it. */
export interface DemoUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

/** The fields of a user a client may write. */
export type DemoUserFields = Omit<DemoUser, 'id'>;

/**
 * The demo backend's users table: kept in id order (the list's stable order), ids never reused,
 * e-mail addresses unique by the contract's `emailKey` (ignoring case, Unicode forms and look-alikes). Owned by one `DemoBackend`, so each application
 * (and each test) starts from its own copy of the seed.
 *
 * @usageNotes
 * ```ts
 * const store = new DemoUserStore(seedUsers());
 * const user = store.insert({ name: 'Grace Hopper', email: 'grace@example.com' });
 * ```
 */
export class DemoUserStore {
  private readonly users: DemoUser[];
  /** A deleted user's id is never given to a new one, so old links never show somebody else. */
  private nextId: number;

  constructor(initial: readonly DemoUser[]) {
    this.users = [...initial].sort((a, b) => a.id - b.id);
    this.nextId = this.users.reduce((max, user) => Math.max(max, user.id), 0) + 1;
  }

  /** How many users there are. */
  get size(): number {
    return this.users.length;
  }

  /** Users `start` (inclusive) to `end` (exclusive) in id order, as copies. */
  slice(start = 0, end = this.users.length): DemoUser[] {
    return this.users.slice(start, end).map((user) => ({ ...user }));
  }

  /** A copy of the user with this id, if any. */
  find(id: number): DemoUser | undefined {
    const user = this.users.find((candidate) => candidate.id === id);
    return user && { ...user };
  }

  /** Adds a user with the next id; returns a copy of it. */
  insert(fields: DemoUserFields): DemoUser {
    const user = { id: this.nextId++, name: fields.name, email: fields.email };
    this.users.push(user);
    return { ...user };
  }

  /** Replaces the fields of an existing user; returns a copy of it, or `undefined` when there is none. */
  update(id: number, fields: DemoUserFields): DemoUser | undefined {
    const index = this.users.findIndex((user) => user.id === id);
    if (index === -1) return undefined;
    const user = { id, name: fields.name, email: fields.email };
    this.users[index] = user;
    return { ...user };
  }

  /** Removes a user; whether there was one. */
  remove(id: number): boolean {
    const index = this.users.findIndex((user) => user.id === id);
    if (index === -1) return false;
    this.users.splice(index, 1);
    return true;
  }

  /** Whether another user (not `exceptId`) has this address: the same `emailKey`, as on the reference server. */
  isEmailTaken(email: string, exceptId?: number): boolean {
    const wanted = emailKey(email);
    return this.users.some((user) => user.id !== exceptId && emailKey(user.email) === wanted);
  }
}
