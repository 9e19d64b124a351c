import type { ContenderId } from '../contenders/contender';
import type { DPoPSubjectId, DPoPSubjectReady } from '../measure/dpop-rounds';
import type { RoundTripScenario } from '../measure/round-trips';

/** bench/results/results.json. Numbers are rounded to 3 significant digits; bytes are whole. */
export interface BenchResults {
  readonly schema: 1;
  readonly mode: 'full' | 'smoke';
  readonly command: string;
  /** Day of the run (UTC). */
  readonly date: string;
  readonly machine: Machine;
  /** 1-minute load average of the machine when the run started and ended (other processes compete for the cores). */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly versions: Readonly<Record<string, string>>;
  readonly contenders: readonly { readonly id: string; readonly label: string; readonly refreshes: boolean }[];
  /** null: not run (`--only`, or no production builds in a smoke run). */
  readonly happyPath: HappyPathResults | null;
  readonly burst: BurstResults | null;
  readonly soak: SoakResults | null;
  readonly roundTrips: RoundTripResults | null;
  readonly bundle: BundleResults | null;
  /** Absent in runs before issue 27. */
  readonly dpop?: DPoPResults | null;
  readonly goals: readonly GoalResult[];
  readonly durationSeconds: number;
}

export interface Machine {
  readonly os: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
  readonly v8: string;
}

export interface HappyPathResults {
  /** Worker processes per contender. */
  readonly isolates: number;
  readonly rounds: number;
  readonly roundMs: number;
  readonly rows: readonly HappyPathRow[];
}

export interface HappyPathRow {
  readonly contender: ContenderId;
  /** The `Authorization` header the backend received (token shortened), or null. */
  readonly authorization: string | null;
  /** 1e9 / nsPerRequest. */
  readonly requestsPerSecond: number;
  /** CPU time per request: median over the worker processes of each one's fastest round. */
  readonly nsPerRequest: number;
  /** Median over all rounds of all worker processes. */
  readonly nsPerRequestMedian: number;
  /** As nsPerRequest, by the wall clock instead of CPU time. */
  readonly wallNsPerRequest: number;
  /** Fastest round of the fastest and of the slowest worker process. */
  readonly nsPerRequestBestRange: readonly [number, number];
  readonly ratioToBare: number;
  readonly ratioToAttachOnly: number;
  /** ns/request above bare: what the token handling itself costs. */
  readonly overheadNs: number;
  /** overheadNs divided by attach-only's overheadNs. */
  readonly overheadRatioToAttachOnly: number;
}

export type BurstStatus = 'ok' | 'multiple-refresh' | 'hang' | 'failed-requests' | 'timeout' | 'error' | 'not-run';

export interface BurstCell {
  readonly contender: ContenderId;
  readonly n: number;
  readonly status: BurstStatus;
  readonly note: string | null;
  readonly samples: number;
  /**
   * Median, lowest and highest settle time (ms), from the refresh answer until all settled, in CPU
   * time of the worker process (what other processes disturb less than the wall clock).
   */
  readonly settleMs: number | null;
  readonly settleMsRange: readonly [number, number] | null;
  /** Median settle time by the wall clock (ms). */
  readonly wallSettleMs: number | null;
  readonly refreshCalls: number | null;
  readonly unauthorized: number | null;
  readonly succeeded: number | null;
  readonly failed: number | null;
  readonly pending: number | null;
  readonly peakHeapBytes: number | null;
  readonly queuedBytesPerRequest: number | null;
}

export interface Linearity {
  readonly contender: ContenderId;
  /** settle(10N) / settle(N), for each N that has both. */
  readonly decadeRatios: readonly { readonly from: number; readonly to: number; readonly ratio: number }[];
  /** Slope of log(settle) against log(N) over N >= 1,000 (1 = linear, 2 = quadratic). */
  readonly slope: number | null;
  readonly linear: boolean | null;
}

export interface FailureCell {
  readonly contender: ContenderId;
  readonly n: number;
  readonly status: BurstStatus;
  readonly note: string | null;
  readonly refreshCalls: number | null;
  readonly rejected: number | null;
  readonly succeeded: number | null;
  readonly pending: number | null;
}

export interface BurstResults {
  readonly sizes: readonly number[];
  readonly cells: readonly BurstCell[];
  readonly linearity: readonly Linearity[];
  readonly failure: readonly FailureCell[];
}

export interface SoakRow {
  readonly contender: ContenderId;
  /** The control: attach-only with the same requests and no expiry (no 401, no refresh). */
  readonly control: boolean;
  readonly status: 'ok' | 'timeout' | 'error';
  readonly note: string | null;
  readonly cycles: number;
  readonly burstSize: number;
  /** Live heap above the baseline after the last cycle (bytes). */
  readonly growthBytes: number | null;
  /** growthBytes minus the control's: what the contender's handling of expiry itself retains. */
  readonly netGrowthBytes: number | null;
  /** The largest reading over the checkpoints. */
  readonly maxGrowthBytes: number | null;
  /** Trend: least-squares slope over the checkpoints, in bytes per cycle. */
  readonly bytesPerCycle: number | null;
  readonly checkpoints: readonly { readonly cycle: number; readonly bytes: number }[];
  readonly refreshCalls: number | null;
  readonly failedRequests: number | null;
  readonly hungRequests: number | null;
  readonly msPerCycle: number | null;
}

export interface SoakResults {
  readonly rows: readonly SoakRow[];
}

export interface RoundTripRow {
  readonly contender: string;
  readonly rate: number;
  readonly calls: number;
  /**
   * Tokens that carried at least one API request and then ended: rejected as expired, or replaced
   * ahead of expiry (a newer token carried a request after them).
   */
  readonly expiries: number;
  /** Of the expiries, those rejected as expired (absent in runs before issue 12: then all were). */
  readonly expiredInUse?: number;
  /** API requests answered 401, and refresh calls, in all (absent in runs before issue 12). */
  readonly unauthorized?: number;
  readonly refreshCalls?: number;
  /** null when no token ended. */
  readonly unauthorizedPerExpiry: number | null;
  readonly refreshesPerExpiry: number | null;
  readonly addedRoundTripsPerExpiry: number | null;
  /** Refresh calls per minute of traffic (absent in runs before issue 12). */
  readonly refreshesPerMinute?: number;
  readonly failedCalls: number;
}

export interface RoundTripResults {
  readonly scenario: RoundTripScenario;
  readonly rows: readonly RoundTripRow[];
  /**
   * Set when these figures come from a run of this suite alone, merged into the results of another
   * run (whose command, date and versions the header shows).
   */
  readonly run?: SuiteRun;
}

/** The run a suite's figures come from, when it is not the run of the header (`--merge`). */
export interface SuiteRun {
  readonly command: string;
  readonly date: string;
  /** ngx-token-refresh's version and commit, as in the header's versions. */
  readonly library: string;
}

export interface BundleVariant {
  readonly id: string;
  readonly description: string;
  /** The variant it is compared with. */
  readonly baseline: string | null;
  readonly rawBytes: number;
  readonly gzipBytes: number;
  readonly addedRawBytes: number | null;
  readonly addedGzipBytes: number | null;
  /** Bytes of output coming from each package, above the baseline (from the build's stats). */
  readonly addedByPackage: Readonly<Record<string, number>>;
}

export interface BundleResults {
  readonly builder: string;
  readonly gzipLevel: number;
  readonly variants: readonly BundleVariant[];
  /**
   * Whether the builds that pass no feature (the interceptor alone, `ntr-interceptor`, the
   * interceptor + service client, `ntr-client`, and the OAuth preset, `ntr-oauth`) are free of every
   * feature's code, judged by the feature kinds' names, which only the `withX()` functions carry; null
   * when not all of them were built. (Runs before 1.0 judged the provider form's build, `ntr-provider`,
   * alone; runs before issue 26 did not build `ntr-oauth`.)
   */
  readonly unusedFeaturesAbsent?: boolean | null;
  /** The feature kinds found in each of those builds that was built (absent in runs before 1.0). */
  readonly featureKindsFound?: Readonly<Record<string, readonly string[]>>;
  /** Set when these figures come from a run of this suite alone, merged into another run's results. */
  readonly run?: SuiteRun;
}

export interface GoalResult {
  readonly goal: string;
  /** null when the run did not measure it (smoke run). */
  readonly met: boolean | null;
  readonly detail: string;
}

/** What DPoP costs per request (issue 27), in Node and in Chromium. */
export interface DPoPResults {
  /** Requests sent at once in the rounds that measure throughput. */
  readonly parallel: number;
  readonly node: DPoPEnvironment;
  /** null: not run (see browserSkipped). */
  readonly browser: DPoPEnvironment | null;
  readonly browserSkipped: string | null;
  /** 1-minute load average when the suite started and ended (absent before it was recorded). */
  readonly loadAverage?: { readonly start: number; readonly end: number };
  /** Set when these figures come from a run of this suite alone, merged into another run's results. */
  readonly run?: SuiteRun;
}

export interface DPoPEnvironment {
  /** `Node v20.20.2`, `Chromium 156.0.8078.108`. */
  readonly name: string;
  /** Copies of each subject (worker processes in Node, browser contexts in Chromium), their rounds pooled. */
  readonly copies: number;
  readonly rounds: number;
  readonly roundMs: number;
  readonly rows: readonly DPoPRow[];
}

export interface DPoPRow {
  readonly subject: DPoPSubjectId;
  /** What the first copy reported before the timed rounds: proofs checked, crypto calls counted. */
  readonly ready: DPoPSubjectReady;
  /** µs per request, one request at a time (each awaited): median over all rounds of all copies. */
  readonly usPerRequest: number;
  readonly usPerRequestQuartiles: readonly [number, number];
  readonly usPerRequestRange: readonly [number, number];
  /** CPU time of the worker process per request, one at a time (Node only; threads included). */
  readonly cpuUsPerRequest: number | null;
  /** µs per request with `parallel` requests at a time: median and range over the rounds. */
  readonly parallelUsPerRequest: number;
  readonly parallelUsPerRequestRange: readonly [number, number];
  /** Above ngx-token-refresh with a Bearer token, one at a time and `parallel` at a time (null for `sign`). */
  readonly addedUs: number | null;
  readonly parallelAddedUs: number | null;
}
