import type { ContenderId } from './contenders/contender';
import type { RoundTripScenario } from './measure/round-trips';

/** Everything a run measures, and how hard. */
export interface BenchConfig {
  readonly mode: 'full' | 'smoke';
  readonly happyPath: {
    readonly contenders: readonly ContenderId[];
    /** Worker processes per contender. */
    readonly isolates: number;
    /** Rounds in which every contender is measured once, in turn (the order rotates). */
    readonly rounds: number;
    readonly warmupRounds: number;
    readonly roundMs: number;
  };
  readonly burst: {
    readonly contenders: readonly ContenderId[];
    readonly sizes: readonly number[];
    /** Timed bursts of N, in all (split between the isolates). */
    readonly repetitions: (n: number) => number;
    /**
     * Worker processes per (contender, N), their samples pooled. One process tends to stay in one
     * garbage-collection regime (see FINDINGS.md: at N = 1,000 a process settles bursts either in
     * ~5 ms or in ~35 ms, whichever the contender), so a median from one process is a coin toss.
     */
    readonly isolates: (n: number) => number;
    /** Bursts of min(N, 1,000) before the timed ones (two more after them read the heap). */
    readonly warmups: number;
    /** After the refresh answer, how long requests may take to settle before they count as hung. */
    readonly hangMs: number;
    /** The worker process of one (contender, N) is killed after this long: a block cannot stop the run. */
    readonly timeoutMs: (n: number) => number;
    /** N of the burst whose refresh fails. */
    readonly failureSize: number;
  };
  readonly soak: {
    readonly contenders: readonly ContenderId[];
    readonly cycles: number;
    readonly burstSize: number;
    readonly warmupCycles: number;
    readonly checkpoints: number;
    readonly timeoutMs: number;
  };
  readonly roundTrips: RoundTripScenario;
  readonly bundle: boolean;
  /** What DPoP costs per request (issue 27). */
  readonly dpop: {
    /** Copies of each subject: worker processes in Node, browser contexts in Chromium. */
    readonly isolates: number;
    /** Rounds in which every copy is measured once one request at a time, once several at a time. */
    readonly rounds: number;
    readonly warmupRounds: number;
    readonly roundMs: number;
    /** Also in Chromium (a production build of bench/browser/); CI's smoke run has no browser yet. */
    readonly browser: boolean;
  };
}

const REFRESHING: readonly ContenderId[] = ['behavior-subject', 'ngx-auth', 'ngx-token-refresh'];
const ALL: readonly ContenderId[] = [
  'bare',
  'attach-only',
  'attach-catch',
  'auth0-jwt',
  'behavior-subject',
  'ngx-auth',
  'ngx-token-refresh',
];

/** `npm run bench`: about 6 minutes on 2 cores. */
export const FULL: BenchConfig = {
  mode: 'full',
  happyPath: { contenders: ALL, isolates: 3, rounds: 8, warmupRounds: 2, roundMs: 150 },
  burst: {
    contenders: REFRESHING,
    sizes: [10, 100, 1_000, 10_000, 100_000],
    repetitions: (n) => ({ 10: 100, 100: 60, 1_000: 30, 10_000: 9 })[n] ?? 3,
    isolates: (n) => ({ 10: 3, 100: 3, 1_000: 5, 10_000: 3 })[n] ?? 1,
    warmups: 20,
    hangMs: 5_000,
    timeoutMs: (n) => 60_000 + n * 2,
    failureSize: 1_000,
  },
  soak: {
    contenders: REFRESHING,
    cycles: 10_000,
    burstSize: 10,
    warmupCycles: 2_000,
    checkpoints: 5,
    timeoutMs: 180_000,
  },
  roundTrips: {
    rates: [2, 10, 50],
    tokenLifetimeMs: 30_000,
    latencyMs: 400,
    jitterMs: 100,
    lifetimes: 10,
    seed: 20_261_121,
  },
  bundle: true,
  dpop: { isolates: 2, rounds: 10, warmupRounds: 2, roundMs: 100, browser: true },
};

/** `npm run bench:smoke`: every script once, with tiny N, in seconds; no production builds. */
export const SMOKE: BenchConfig = {
  mode: 'smoke',
  happyPath: { contenders: ALL, isolates: 1, rounds: 1, warmupRounds: 0, roundMs: 20 },
  burst: {
    contenders: REFRESHING,
    sizes: [10, 100],
    repetitions: () => 2,
    isolates: () => 1,
    warmups: 1,
    hangMs: 1_000,
    timeoutMs: () => 60_000,
    failureSize: 10,
  },
  soak: { contenders: REFRESHING, cycles: 100, burstSize: 10, warmupCycles: 10, checkpoints: 2, timeoutMs: 60_000 },
  // The showcase's 30 s token: withProactiveRefresh leaves a token that lives no longer than its
  // minInterval (5 s) to its 401, so a shorter one would not exercise it. Virtual time: still instant.
  roundTrips: { rates: [10], tokenLifetimeMs: 30_000, latencyMs: 400, jitterMs: 100, lifetimes: 2, seed: 20_261_121 },
  bundle: false,
  dpop: { isolates: 1, rounds: 1, warmupRounds: 0, roundMs: 10, browser: false },
};
