import type { Observer } from 'rxjs';

/** Counts how the requests of a burst end, and when the last one did. */
export class Tally {
  succeeded = 0;
  failed = 0;
  /** `performance.now()` when the last request settled; 0 until then. */
  settledAt = 0;
  /** CPU time of the process (µs) when the last request settled. */
  settledCpu = 0;
  readonly finished: Promise<void>;
  readonly observer: Partial<Observer<unknown>> = {
    complete: () => {
      this.succeeded++;
      this.check();
    },
    error: () => {
      this.failed++;
      this.check();
    },
  };
  private done!: () => void;

  constructor(readonly expected: number) {
    this.finished = new Promise((resolve) => (this.done = resolve));
  }

  get settled(): number {
    return this.succeeded + this.failed;
  }

  private check(): void {
    if (this.settled === this.expected) {
      this.settledAt = performance.now();
      this.settledCpu = cpuMicros();
      this.done();
    }
  }
}

/** Resolves after `ms` milliseconds, or when `promise` does; tells which. */
export async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets pending microtasks and one round of timers run. */
export const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** CPU time this process has used, in microseconds (user + system, all its threads). */
export function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}
