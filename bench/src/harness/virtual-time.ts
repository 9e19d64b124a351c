import { DOCUMENT_STUB } from './bench-app';

/**
 * Where the virtual clock starts, as `Date.now()` sees it: a whole second (2027-01-15T08:00:00Z), so
 * a token issued at virtual time 0 has `iat` exactly at the start and `exp` exactly one lifetime later.
 */
export const VIRTUAL_EPOCH_MS = 1_800_000_000_000;

/** Events in time order (ties in the order they were scheduled). Times in ms from the start. */
export class VirtualClock {
  now = 0;
  private queue: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;

  /** Runs `run` at `at` (never before the current time); returns a function that cancels it. */
  schedule(at: number, run: () => void): () => void {
    const event = { at: Math.max(at, this.now), seq: this.seq++, run };
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const other = this.queue[middle];
      if (other.at < event.at || (other.at === event.at && other.seq < event.seq)) low = middle + 1;
      else high = middle;
    }
    this.queue.splice(low, 0, event);
    return () => {
      const index = this.queue.indexOf(event);
      if (index >= 0) this.queue.splice(index, 1);
    };
  }

  /** Runs the events in order until there are none left, or `done()` says so after one of them. */
  run(done: () => boolean = () => false): void {
    for (let event = this.queue.shift(); event; event = done() ? undefined : this.queue.shift()) {
      this.now = event.at;
      event.run();
    }
  }

  /** Events still waiting. */
  get pending(): number {
    return this.queue.length;
  }
}

/** A timer of the virtual clock, as `setTimeout` hands it out while virtual time is installed. */
class VirtualTimer {
  constructor(readonly cancel: () => void) {}
}

/**
 * Runs `body` in a page whose time is `clock`'s: `setTimeout`, `clearTimeout` and `Date.now` (whole
 * milliseconds from {@link VIRTUAL_EPOCH_MS}) are the virtual clock's while it runs, and the real ones
 * again afterwards, also when it throws. A handle of a real timer given to `clearTimeout` meanwhile
 * still clears that timer.
 *
 * The page is one tab without Web Locks (`navigator` is undefined meanwhile, as in Node 20): a lock
 * is granted by the real event loop, outside the virtual clock, so cross-tab sync (which `provideAuth`
 * turns on in a browser) stays off, as it does for the contenders that do not run as a browser.
 */
export function inVirtualTime<T>(clock: VirtualClock, body: () => T): T {
  const real = { setTimeout, clearTimeout, now: Date.now };
  const navigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  const virtualSetTimeout = (handler: unknown, delay?: number, ...args: unknown[]) => {
    if (typeof handler !== 'function') throw new Error('bench: setTimeout with a string handler');
    const wait = Math.max(Number(delay) || 0, 0);
    return new VirtualTimer(clock.schedule(clock.now + wait, () => handler(...args)));
  };
  globalThis.setTimeout = virtualSetTimeout as unknown as typeof setTimeout;
  globalThis.clearTimeout = ((timer: unknown) => {
    if (timer instanceof VirtualTimer) timer.cancel();
    else real.clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  }) as typeof clearTimeout;
  Date.now = () => VIRTUAL_EPOCH_MS + Math.floor(clock.now);
  if (navigator) Object.defineProperty(globalThis, 'navigator', { value: undefined, configurable: true });
  try {
    return body();
  } finally {
    globalThis.setTimeout = real.setTimeout;
    globalThis.clearTimeout = real.clearTimeout;
    Date.now = real.now;
    if (navigator) Object.defineProperty(globalThis, 'navigator', navigator);
  }
}

/** What `DOCUMENT` holds for an app that runs as a browser page: the bench's page, visible, with listeners. */
export interface BrowserDocumentStub {
  readonly visibilityState: 'visible' | 'hidden';
  readonly defaultView: EventTargetStub;
  addEventListener(type: string, listener: unknown): void;
  removeEventListener(type: string, listener: unknown): void;
  /** Listeners registered and not removed, on the document and on its window. */
  listenerCount(): number;
}

interface EventTargetStub {
  addEventListener(type: string, listener: unknown): void;
  removeEventListener(type: string, listener: unknown): void;
}

/** The bench's page (`DOCUMENT_STUB`) as a visible browser page that keeps track of its event listeners. */
export function browserDocument(): BrowserDocumentStub {
  const listeners = new Set<string>();
  const ids = new Map<unknown, number>();
  const key = (target: string, type: string, listener: unknown) => {
    if (!ids.has(listener)) ids.set(listener, ids.size);
    return `${target} ${type} ${ids.get(listener)}`;
  };
  const target = (name: string): EventTargetStub => ({
    addEventListener: (type, listener) => void listeners.add(key(name, type, listener)),
    removeEventListener: (type, listener) => void listeners.delete(key(name, type, listener)),
  });
  return {
    ...DOCUMENT_STUB,
    ...target('document'),
    visibilityState: 'visible',
    defaultView: target('window'),
    listenerCount: () => listeners.size,
  };
}
