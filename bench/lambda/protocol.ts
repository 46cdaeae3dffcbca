/**
 * What the sweep's parent and a handler's worker process say to each other
 * over the IPC channel: set-up, then one batch in, one sample out, until the
 * parent says stop.
 */
import type { ClientOptions, VariantTables } from '../dynamo.js';
import type { SampleLike } from '../stats.js';
import type { Delivery } from '../workload.js';

/** Parent → worker: build the variant's handler. */
export interface InitMessage {
  readonly type: 'init';
  readonly variantId: string;
  readonly endpoint: string;
  readonly tables: VariantTables;
  /** The client's set-up; `aws.seed` is already the variant's own seed. */
  readonly client: ClientOptions;
  readonly cacheEntries: number;
  readonly memoryMb: number;
}

/** Parent → worker: run one batch and report it. */
export interface BatchMessage {
  readonly type: 'batch';
  readonly deliveries: readonly Delivery[];
  readonly slice: number;
}

export type ToWorker = InitMessage | BatchMessage | { readonly type: 'stop' };

/** A batch as measured inside the worker: everything but DynamoDB Local's CPU, which the parent reads. */
export type WorkerSample = Omit<SampleLike, 'serverCpuMs'>;

export type FromWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'sample'; readonly sample: WorkerSample; readonly error: string | undefined }
  | { readonly type: 'failed'; readonly error: string };
