/**
 * Waiting for a run to finish: every message sent, every queue empty (the
 * poison redriven to its DLQ), every async event settled, no handler busy.
 * Reports progress on the way and stops early on a failure or an abort.
 */
import type { FauxqsServer } from 'fauxqs';
import type { AsyncInvoker } from './async-invoker.js';
import { depth } from './dlq.js';
import type { SqsMapping } from './event-source.js';
import type { LocalQueues } from './queues.js';
import { totalOf, type SourceStats } from './stats.js';

/** One progress sample. */
export interface Progress {
  readonly elapsedMs: number;
  /** Messages accepted by the local queues so far. */
  readonly sent: number;
  /** Deliveries to handlers (SQS receives + async attempts). */
  readonly delivered: number;
  /** Deliveries acknowledged. */
  readonly acknowledged: number;
  /** Records inside a handler right now. */
  readonly inFlight: number;
  /** Messages still in the consumed queues (waiting, in flight or invisible). */
  readonly queued: number;
  /** Async events queued, running or waiting for a retry. */
  readonly asyncPending: number;
  /** Messages in the DLQs and the on-failure destination. */
  readonly dlq: number;
}

export interface DrainInput {
  readonly server: FauxqsServer;
  readonly queues: LocalQueues;
  readonly mappings: readonly SqsMapping[];
  readonly invoker: Pick<AsyncInvoker<never>, 'pending' | 'error'>;
  readonly stats: readonly SourceStats[];
  readonly sending: { done: boolean; error: unknown; sent: () => number };
  readonly startedAt: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((progress: Progress) => void) | undefined;
  readonly progressIntervalMs: number;
}

/** The run was interrupted (Ctrl-C); everything started is still stopped. */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
}

export function sample(input: DrainInput): Progress {
  const { server, queues } = input;
  const total = totalOf(input.stats);
  return {
    elapsedMs: Date.now() - input.startedAt,
    sent: input.sending.sent(),
    delivered: total.delivered,
    acknowledged: total.acknowledged,
    inFlight: total.inFlight,
    queued: depth(server, queues.payments) + depth(server, queues.notifications),
    asyncPending: input.invoker.pending(),
    dlq: depth(server, queues.payments.dlq) + depth(server, queues.notifications.dlq) + depth(server, queues.pointsFailures),
  };
}

function failure(input: DrainInput): unknown {
  if (input.signal?.aborted === true) return new RunAbortedError('Interrupted; stopping everything that was started.');
  if (input.sending.error !== undefined) return input.sending.error;
  for (const m of input.mappings) if (m.error() !== undefined) return m.error();
  return input.invoker.error();
}

const idle = (p: Progress): boolean => p.queued === 0 && p.asyncPending === 0 && p.inFlight === 0;

/**
 * Resolves `true` once the run is finished (seen twice in a row, 100 ms
 * apart, so a hand-over between a handler and the invoker is not mistaken
 * for the end), `false` at the timeout; rejects on a failure or an abort.
 */
export async function drain(input: DrainInput): Promise<boolean> {
  let lastProgress = 0;
  let idleSamples = 0;
  for (;;) {
    const error = failure(input);
    if (error !== undefined) throw error;
    const progress = sample(input);
    if (input.onProgress !== undefined && progress.elapsedMs - lastProgress >= input.progressIntervalMs) {
      lastProgress = progress.elapsedMs;
      input.onProgress(progress);
    }
    idleSamples = input.sending.done && idle(progress) ? idleSamples + 1 : 0;
    if (idleSamples >= 2) return true;
    if (progress.elapsedMs > input.timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
