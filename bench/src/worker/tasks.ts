import type { ContenderId } from '../contenders/contender';
import type { BurstSample } from '../measure/burst';
import type { DPoPSubjectId, DPoPSubjectReady } from '../measure/dpop-rounds';
import type { RoundTripResult, RoundTripScenario } from '../measure/round-trips';
import type { SoakResult } from '../measure/soak';

/** What a worker process is asked to do (its argument), and what it answers. */
export type WorkerTask =
  | { readonly kind: 'happy'; readonly contender: ContenderId }
  | {
      readonly kind: 'burst';
      readonly contender: ContenderId;
      readonly n: number;
      readonly repetitions: number;
      readonly warmups: number;
      readonly hangMs: number;
      readonly failRefresh: boolean;
    }
  | {
      readonly kind: 'soak';
      readonly contender: ContenderId;
      /** false: the control, the same requests without expiry (nothing fails, nothing refreshes). */
      readonly expire: boolean;
      readonly cycles: number;
      readonly burstSize: number;
      readonly warmupCycles: number;
      readonly checkpoints: number;
    }
  | { readonly kind: 'round-trips'; readonly scenario: RoundTripScenario }
  | { readonly kind: 'dpop'; readonly subject: DPoPSubjectId };

export type WorkerAnswer =
  | { readonly kind: 'burst'; readonly samples: BurstSample[] }
  | { readonly kind: 'soak'; readonly result: SoakResult }
  | { readonly kind: 'round-trips'; readonly results: RoundTripResult[] };

/** Messages of the happy-path worker, which stays up for all rounds. */
export type HappyRequest = { readonly type: 'measure'; readonly ms: number } | { readonly type: 'close' };
export type HappyAnswer =
  | { readonly type: 'ready'; readonly authorization: string | null }
  | { readonly type: 'measured'; readonly requests: number; readonly ms: number; readonly cpuMs: number };

/** Messages of the DPoP worker, which stays up for all rounds. */
export type DPoPRequest =
  { readonly type: 'measure'; readonly parallel: number; readonly ms: number } | { readonly type: 'close' };
export type DPoPAnswer =
  | { readonly type: 'ready'; readonly ready: DPoPSubjectReady }
  | { readonly type: 'measured'; readonly requests: number; readonly ms: number; readonly cpuMs: number };
