/**
 * The local SQS event-source mapping: the one mapping simulator
 * (scripts/sim/sqs-mapping.ts, the same that `drain` runs on) over
 * the local SQS transport, with the local run's counters and faults. It
 * behaves like Lambda's with `functionResponseType: ReportBatchItemFailures`:
 * receive up to a batch, invoke, delete only what the handler did not report
 * as failed, and leave the rest to come back after the visibility timeout
 * (and, past `maxReceiveCount`, to be moved to the DLQ by the queue itself).
 *
 * `serverless-offline-sqs` deletes the whole batch whatever the handler
 * returns, so it cannot show partial batch failures; hence this.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import type { InvocationResult } from '../../src/testing/index.js';
import { startPolling, type PollReport } from '../sim/sqs-mapping.js';
import type { ConsumedQueue } from './queues.js';
import { sqsTransport } from './sqs-transport.js';
import type { SourceStats } from './stats.js';

export { idsToDelete } from '../sim/sqs-mapping.js';

/** A middy-wrapped SQS handler as Lambda calls it. */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface SqsMappingOptions {
  readonly client: SQSClient;
  readonly queue: ConsumedQueue;
  readonly functionName: string;
  readonly handler: SqsHandler;
  /** Concurrent pollers, each invoking one batch at a time. */
  readonly pollers: number;
  readonly functionTimeoutMs: number;
  readonly stats: SourceStats;
  /** Long-poll wait; short, so `stop()` returns quickly. */
  readonly waitTimeSeconds?: number;
  /** Return true to skip the delete of a handled batch, as if the poller crashed before the ACK. */
  readonly loseAck?: (event: SQSEvent) => boolean;
  /** Called with each invocation's outcome, e.g. to log why a batch failed. */
  readonly onInvocation?: (event: SQSEvent, outcome: InvocationResult<unknown>) => void;
  /** Called with the message ids deleted after an invocation (acknowledged records). */
  readonly onAcknowledged?: (event: SQSEvent, ids: readonly string[]) => void;
  /** Chaos: return true to hand this batch to two invocations at once, as two pollers given the same message. */
  readonly deliverTwice?: (event: SQSEvent) => boolean;
  /** Chaos: the function timeout for this batch (default `functionTimeoutMs`), to time a batch out mid-way. */
  readonly timeoutFor?: (event: SQSEvent) => number;
}

/** A running mapping. */
export interface SqsMapping {
  /** The error that stopped a poller (the local SQS went away), if any; the run checks it while waiting. */
  error(): unknown;
  /** Stops receiving, waits for the batches in hand to finish (and their deletes). */
  stop(): Promise<void>;
}

const OUTCOME_COUNTER = { threw: 'handlerErrors', crashed: 'crashes', 'timed-out': 'timeouts' } as const;

/** The run's counters after one invocation's report. */
function count(options: SqsMappingOptions, event: SQSEvent, report: PollReport): void {
  const { stats } = options;
  if (report.outcome === 'invalid-response') stats.invalidResponses += 1;
  // Deletes the queue refused were still sent: those records come back as duplicates, not as losses.
  const acknowledged = [...report.deleted, ...report.deleteRefused];
  if (acknowledged.length > 0) options.onAcknowledged?.(event, acknowledged);
  stats.acknowledged += acknowledged.length;
  stats.retried += event.Records.length - acknowledged.length;
}

/**
 * Starts `pollers` concurrent receive–invoke–delete loops on the queue.
 * A poller that fails (the local SQS went away) stops all of them; `error()`
 * says why and `stop()` re-throws it.
 */
export function startSqsMapping(options: SqsMappingOptions): SqsMapping {
  const { stats, queue } = options;
  return startPolling({
    transport: sqsTransport(options.client, queue, options.waitTimeSeconds),
    pollers: options.pollers,
    batchSize: queue.definition.batchSize,
    handler: options.handler,
    functionName: options.functionName,
    timeoutMs: (event) => options.timeoutFor?.(event) ?? options.functionTimeoutMs,
    context: { region: LOCAL_REGION, accountId: LOCAL_ACCOUNT, memoryLimitInMB: 1024 },
    loseAck: (event) => {
      const lost = options.loseAck?.(event) === true;
      if (lost) stats.lostAcks += 1;
      return lost;
    },
    ...(options.deliverTwice === undefined ? {} : { deliverTwice: options.deliverTwice }),
    observer: {
      invoking: (event) => {
        stats.invocations += 1;
        stats.delivered += event.Records.length;
        stats.inFlight += event.Records.length;
      },
      invoked: (event, result) => {
        stats.inFlight -= event.Records.length;
        options.onInvocation?.(event, result);
        if (result.kind !== 'returned') stats[OUTCOME_COUNTER[result.kind]] += 1;
      },
      acknowledging: (_event, ids, receivedAt) => {
        if (Date.now() - receivedAt >= queue.visibilityTimeoutSeconds * 1000) stats.lateDeletes += ids.length;
      },
    },
    onReport: (event, report) => count(options, event, report),
  });
}
