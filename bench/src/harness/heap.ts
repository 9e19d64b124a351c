import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const gc = (globalThis as { gc?: () => void }).gc;

/** One full garbage collection; needs `node --expose-gc`. */
export function collect(): void {
  if (!gc) throw new Error('bench: run node with --expose-gc');
  gc();
}

/** Bytes of this process's V8 heap in use (live objects plus garbage not yet collected). */
export function usedHeap(): number {
  return getHeapStatistics().used_heap_size;
}

/** Full garbage collections until the heap stops shrinking; needs `node --expose-gc`. */
export function fullGc(): void {
  let before = Infinity;
  for (let i = 0; i < 4; i++) {
    collect();
    const after = usedHeap();
    if (after >= before) break;
    before = after;
  }
}

/**
 * Bytes of live objects outside the code spaces: what a leak of subscriptions or closures grows.
 * Machine code that V8 compiles (or optimises again) as the run goes on is left out.
 */
export function usedObjectHeap(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (!space.space_name.startsWith('code_')) bytes += space.space_used_size;
  }
  return bytes;
}
