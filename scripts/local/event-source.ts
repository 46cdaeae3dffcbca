/**
 * A local SQS event-source mapping that behaves like Lambda's with
 * `functionResponseType: ReportBatchItemFailures`: receive up to a batch,
 * invoke, delete only what the handler did not report as failed, and leave
 * the rest to come back after the visibility timeout (and, past
 * `maxReceiveCount`, to be moved to the DLQ by the queue itself).
 *
 * `serverless-offline-sqs` deletes the whole batch whatever the handler
 * returns, so it cannot show partial batch failures; hence this.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { InvalidBatchResponseError, parseBatchResponse, type InvocationResult } from '../../src/testing/index.js';
import { invokeLocally } from './lambda-context.js';
import type { ConsumedQueue } from './queues.js';
import { toSqsEvent } from './sqs-records.js';
import type { SourceStats } from './stats.js';

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
  readonly onInvocation?: (event: SQSEvent, outcome: InvocationResult<SQSBatchResponse | void>) => void;
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

/**
 * Which message ids to delete after an invocation. Lambda's rules: a thrown
 * error, a crash or a timeout fails the whole batch; so does a response it cannot
 * honour (see `parseBatchResponse`), e.g. one naming an identifier that is
 * empty or not in the batch. No response (or an empty `batchItemFailures`)
 * means every record succeeded.
 */
export function idsToDelete(
  event: SQSEvent,
  outcome: InvocationResult<SQSBatchResponse | void>,
): { readonly ids: readonly string[]; readonly invalid: boolean } {
  if (outcome.outcome !== 'returned') return { ids: [], invalid: false };
  const all = event.Records.map((r) => r.messageId);
  let failed: Set<string>;
  try {
    failed = parseBatchResponse(outcome.value, new Set(all));
  } catch (error) {
    // Lambda retries the whole batch: nothing is deleted.
    if (error instanceof InvalidBatchResponseError) return { ids: [], invalid: true };
    throw error;
  }
  return { ids: all.filter((id) => !failed.has(id)), invalid: false };
}

async function deleteMessages(client: SQSClient, queueUrl: string, event: SQSEvent, ids: readonly string[]) {
  if (ids.length === 0) return;
  const wanted = new Set(ids);
  const entries = event.Records.filter((r) => wanted.has(r.messageId)).map((r, i) => ({
    Id: String(i),
    ReceiptHandle: r.receiptHandle,
  }));
  const result = await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  if ((result.Failed?.length ?? 0) > 0) {
    // A failed delete means a redelivery later: the duplicate path, not a loss.
    process.emitWarning(`DeleteMessageBatch on ${queueUrl}: ${result.Failed?.length} entries failed.`);
  }
}

async function receive(options: SqsMappingOptions, signal: AbortSignal): Promise<Message[]> {
  const result = await options.client.send(
    new ReceiveMessageCommand({
      QueueUrl: options.queue.url,
      MaxNumberOfMessages: options.queue.definition.batchSize,
      WaitTimeSeconds: options.waitTimeSeconds ?? 1,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
    { abortSignal: signal },
  );
  return result.Messages ?? [];
}

/** One invocation of a received batch, then the deletes its response allows (or a lost ACK). */
async function invokeAndAcknowledge(options: SqsMappingOptions, event: SQSEvent, receivedAt: number): Promise<void> {
  const { stats } = options;
  const n = event.Records.length;
  stats.invocations += 1;
  stats.delivered += n;
  stats.inFlight += n;
  let outcome: InvocationResult<SQSBatchResponse | void>;
  try {
    const timeoutMs = options.timeoutFor?.(event) ?? options.functionTimeoutMs;
    outcome = await invokeLocally(options.handler, event, options.functionName, timeoutMs);
  } finally {
    stats.inFlight -= n;
  }
  options.onInvocation?.(event, outcome);
  if (outcome.outcome === 'threw') stats.handlerErrors += 1;
  if (outcome.outcome === 'crashed') stats.crashes += 1;
  if (outcome.outcome === 'timed-out') stats.timeouts += 1;
  const { ids, invalid } = idsToDelete(event, outcome);
  if (invalid) stats.invalidResponses += 1;
  if (ids.length > 0 && options.loseAck?.(event) === true) {
    stats.lostAcks += 1;
    stats.retried += n;
    return;
  }
  if (Date.now() - receivedAt >= options.queue.visibilityTimeoutSeconds * 1000) stats.lateDeletes += ids.length;
  await deleteMessages(options.client, options.queue.url, event, ids);
  options.onAcknowledged?.(event, ids);
  stats.acknowledged += ids.length;
  stats.retried += n - ids.length;
}

async function handleBatch(options: SqsMappingOptions, messages: Message[], receivedAt: number): Promise<void> {
  const event = toSqsEvent(messages, options.queue.arn);
  // Two pollers given the same messages: both invocations really run at once, each deletes what it acknowledged.
  const copies = options.deliverTwice?.(event) === true ? 2 : 1;
  await Promise.all(Array.from({ length: copies }, () => invokeAndAcknowledge(options, event, receivedAt)));
}

async function pollLoop(options: SqsMappingOptions, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    let messages: Message[];
    try {
      messages = await receive(options, signal);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    // The visibility clock started when the queue answered, a moment before now.
    if (messages.length > 0) await handleBatch(options, messages, Date.now());
  }
}

/**
 * Starts `pollers` concurrent receive–invoke–delete loops on the queue.
 * A poller that fails (the local SQS went away) stops all of them; `error()`
 * says why and `stop()` re-throws it.
 */
export function startSqsMapping(options: SqsMappingOptions): SqsMapping {
  const controller = new AbortController();
  let failure: { readonly error: unknown } | undefined;
  const loops = Array.from({ length: options.pollers }, () =>
    pollLoop(options, controller.signal).catch((error: unknown) => {
      failure ??= { error };
      controller.abort();
    }),
  );
  return {
    error: () => failure?.error,
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
      if (failure !== undefined) throw failure.error;
    },
  };
}
