/** Which queue a sign-in waits in: a trusted device of the account it names, or anything else. */
export type PasswordCheckLane = 'trusted' | 'other';

/** Frees the slot it was given with; calling it again does nothing. */
export type ReleasePasswordCheck = () => void;

/**
 * A cap on the password checks (scrypt) one instance runs at once. Without one, a flood of sign-ins
 * from many addresses and for many names (each under every rate limit) queues its hashes in Node's
 * thread pool, first come first served, and a real person's sign-in waits behind all of them. With
 * it, at most `concurrency` checks run; the others wait in one of two queues, and a slot that frees
 * goes to a trusted device of the account first (see login-devices.ts), so someone who signed in
 * from this browser before waits for one hash at most, whatever the flood. A full queue is refused
 * at once (the route answers 503), so a flood cannot make a sign-in wait long nor hold memory.
 */
export interface PasswordChecks {
  /**
   * A slot for one check, once one is free (trusted devices first), or `undefined` at once when
   * `lane`'s queue is full.
   */
  acquire(lane: PasswordCheckLane): Promise<ReleasePasswordCheck> | undefined;
  /** Whether {@link acquire} would refuse `lane` now: to refuse before any other work is done. */
  full(lane: PasswordCheckLane): boolean;
}

/** How many checks run at once and how many may wait in each lane. */
export interface PasswordChecksOptions {
  /** Checks run at once; 0: no cap (every check starts at once, and nothing is ever refused). */
  readonly concurrency: number;
  /** Checks that may wait in each lane beyond those running. */
  readonly queueLength: number;
}

/** The release of a slot when there is no cap: nothing was taken. */
const NOTHING_TO_FREE: ReleasePasswordCheck = () => undefined;

/**
 * The instance's cap on password checks; see {@link PasswordChecks}.
 *
 * @example
 * const checks = createPasswordChecks({ concurrency: 2, queueLength: 256 });
 * const slot = checks.acquire('other');
 * if (slot === undefined) throw busy(); // 503
 * const release = await slot;
 * try { await verifyPassword(password, hash); } finally { release(); }
 */
export function createPasswordChecks({ concurrency, queueLength }: PasswordChecksOptions): PasswordChecks {
  let running = 0;
  const waiting: Record<PasswordCheckLane, (() => void)[]> = { trusted: [], other: [] };
  const slot = (): ReleasePasswordCheck => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so `running` never dips and no newcomer can
      // overtake the queue between the release and the waiter's turn.
      const next = waiting.trusted.shift() ?? waiting.other.shift();
      if (next) next();
      else running--;
    };
  };
  const full = (lane: PasswordCheckLane) =>
    concurrency !== 0 && running >= concurrency && waiting[lane].length >= queueLength;
  return {
    full,
    acquire(lane) {
      if (concurrency === 0) return Promise.resolve(NOTHING_TO_FREE);
      if (running < concurrency) {
        running++;
        return Promise.resolve(slot());
      }
      if (full(lane)) return undefined;
      return new Promise((resolve) => waiting[lane].push(() => resolve(slot())));
    },
  };
}
