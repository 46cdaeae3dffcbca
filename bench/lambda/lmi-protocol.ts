/**
 * Lambda Managed Instances: what the parent, an execution environment's
 * process (lmi-environment.ts) and its worker threads (lmi-thread.ts) say to
 * each other. The parent hands the environment a slice of the workload; the
 * environment keeps `inFlight` invocations going across its threads, as
 * Lambda keeps an environment's concurrency up, and answers with what the
 * slice took.
 */
import type { RequestTally } from '../counter.js';
import type { RequestPatterns } from '../stats.js';
import type { Delivery } from '../workload.js';
import type { InitMessage } from './protocol.js';

/** Parent → environment: start the threads and build the variant's handler in each (each thread mixes its index into `client.aws.seed`). */
export interface LmiInit extends InitMessage {
  /** Worker threads: one per vCPU, as the Node.js runtime starts them. */
  readonly threads: number;
  /** The bundled thread script. */
  readonly threadFile: string;
}

/** Parent → environment: run these batches with `inFlight` invocations at a time. */
export interface LmiSliceOrder {
  readonly type: 'slice';
  readonly batches: ReadonlyArray<readonly Delivery[]>;
  readonly inFlight: number;
  readonly batchSize: number;
}

export type ToEnvironment = LmiInit | LmiSliceOrder | { readonly type: 'stop' };

/** What one slice took in the environment (CPU is the whole process's: every thread). */
export interface LmiSliceResult {
  /** Wall ms of the steady window: from the first invocation until the last fresh batch was handed out. */
  readonly windowMs: number;
  readonly windowCpuMs: number;
  /** Deliveries acknowledged by invocations that ended inside the window. */
  readonly windowRecords: number;
  /** Wall ms and CPU of the whole slice, to the last answer. */
  readonly totalMs: number;
  readonly totalCpuMs: number;
  /** Deliveries acknowledged in all (each once). */
  readonly records: number;
  /** Wall ms of every invocation, redeliveries included. */
  readonly batchMs: readonly number[];
  readonly invocations: number;
  readonly redeliveries: number;
  /** Deliveries given up after the last attempt. */
  readonly unacknowledged: number;
  readonly tally: RequestTally;
  /** Invocations by the request pattern their batch log line named (ours' claim strategy; none for the others). */
  readonly requestPatterns: RequestPatterns;
  readonly error: string | undefined;
}

export type FromEnvironment =
  | { readonly type: 'ready' }
  | { readonly type: 'slice'; readonly result: LmiSliceResult }
  | { readonly type: 'failed'; readonly error: string };

/** Environment → thread: one invocation. */
export interface ThreadInvoke {
  readonly type: 'invoke';
  readonly id: number;
  readonly deliveries: readonly Delivery[];
}

export type ToThread = ThreadInvoke | { readonly type: 'tally' } | { readonly type: 'stop' };

export type FromThread =
  | { readonly type: 'ready' }
  | {
      readonly type: 'done';
      readonly id: number;
      readonly ms: number;
      /** Message ids in `batchItemFailures` (all of the batch when the handler threw). */
      readonly failed: readonly string[];
      readonly error: string | undefined;
    }
  | { readonly type: 'tally'; readonly tally: RequestTally; readonly requestPatterns: RequestPatterns }
  | { readonly type: 'failed'; readonly error: string };
