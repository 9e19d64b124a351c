import type { Observable } from 'rxjs';

// Shared by the library's specs (not part of the library build: see tsconfig.lib.json).

/** Subscribes and records what the caller receives: its value, its error, how often it settled. */
export function track<T>(source: Observable<T>) {
  const result: { value?: T; error?: unknown; settled: number } = { settled: 0 };
  source.subscribe({
    next: (value) => (result.value = value),
    error: (error: unknown) => {
      result.error = error;
      result.settled++;
    },
    complete: () => result.settled++,
  });
  return result;
}
