/**
 * The one Lambda SQS event source mapping simulator, over any queue: the
 * in-memory `SqsQueueSimulator` (`runEventSourceMapping`, `drain`) and a
 * real or local SQS (the fauxqs transport of `npm start` and `npm run
 * chaos`). Receive a batch, invoke the handler with a real `SQSEvent` and
 * `Context`, delete exactly the messages the handler did not report in
 * `batchItemFailures`, leave the rest to come back after the visibility
 * timeout. As Lambda does, a handler that throws, crashes, times out, or
 * returns a response it cannot honour fails the whole batch: nothing is deleted.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../../src/engine/clock.js';
import { systemClock } from '../../src/engine/clock.js';
import { InvalidBatchResponseError } from './errors.js';
import { lambdaContext, sqsEvent } from '../../src/testing/events.js';
import type { LambdaContextOptions } from '../../src/testing/events.js';
import { invoke } from '../../src/testing/invocation.js';
import type { InvocationResult, LambdaHandler } from '../../src/testing/invocation.js';

/** How a batch's invocation ended. */
export type SqsHandlerResult = InvocationResult<unknown>;

/**
 * Where a mapping gets its messages. A synchronous queue may answer
 * synchronously: concurrent pollers then receive in call order, which keeps
 * runs on the in-memory queue deterministic.
 */
export interface SqsTransport {
  /** Receives up to `maxMessages` (1..10) visible messages as Lambda records. */
  receive(maxMessages: number, signal: AbortSignal | undefined): SQSRecord[] | Promise<SQSRecord[]>;
  /** Deletes received records; says for each whether the queue took the delete (a stale receipt handle is refused). */
  delete(records: readonly SQSRecord[]): boolean[] | Promise<boolean[]>;
}

/** Told of each batch's steps: counters, logs, fault decisions. */
export interface BatchObserver {
  readonly invoking?: (event: SQSEvent) => void;
  readonly invoked?: (event: SQSEvent, result: SqsHandlerResult) => void;
  /** Right before the deletes of `ids`; `receivedAt` is when the queue handed the batch over. */
  readonly acknowledging?: (event: SQSEvent, ids: readonly string[], receivedAt: number) => void;
}

/** How one received batch is run. */
export interface BatchOptions {
  readonly handler: LambdaHandler<SQSEvent, unknown>;
  readonly functionName: string;
  /** The function timeout for this batch. */
  readonly timeoutMs: (event: SQSEvent) => number;
  readonly clock?: Clock;
  /** Where the function lives, for its Context. */
  readonly context?: Pick<LambdaContextOptions, 'region' | 'accountId' | 'memoryLimitInMB'>;
  /** `functionResponseType: ReportBatchItemFailures` (default true). When false, any return deletes the whole batch. */
  readonly reportBatchItemFailures?: boolean;
  /** Faults: true skips the deletes of a handled batch, as if the poller died before the ACK. */
  readonly loseAck?: (event: SQSEvent) => boolean;
  readonly observer?: BatchObserver;
}

interface PollBase {
  /** `awsRequestId` of the invocation; undefined when the queue gave nothing. */
  readonly requestId: string | undefined;
  /** Message ids of the batch, in delivery order. */
  readonly messageIds: readonly string[];
  /** Messages deleted (acknowledged). */
  readonly deleted: readonly string[];
  /** Messages left on the queue for redelivery. */
  readonly retained: readonly string[];
  /** Acknowledged but refused by the queue (stale or expired receipt handle): they will come back. */
  readonly deleteRefused: readonly string[];
  readonly durationMs: number;
}

/** What one poll did. */
export type PollReport =
  | (PollBase & { readonly outcome: 'empty' })
  | (PollBase & { readonly outcome: 'succeeded' | 'partial'; readonly response: unknown })
  | (PollBase & { readonly outcome: 'threw' | 'invalid-response' | 'crashed' | 'timed-out'; readonly error: unknown });

/**
 * The message ids the response reports as failed. Throws
 * `InvalidBatchResponseError` for a response Lambda would treat as a complete
 * failure; `undefined`, `null`, `{}` and an empty list mean full success.
 * Exported for local event source mappings over other queues (e.g. a local SQS server).
 *
 * @example
 * ```ts
 * import { parseBatchResponse } from './index.js';
 * const failed = parseBatchResponse({ batchItemFailures: [{ itemIdentifier: 'm-2' }] }, new Set(['m-1', 'm-2']));
 * console.log([...failed]); // ['m-2']
 * ```
 */
export function parseBatchResponse(response: unknown, batchIds: ReadonlySet<string>): Set<string> {
  const failed = new Set<string>();
  if (response === undefined || response === null) return failed;
  if (typeof response !== 'object' || Array.isArray(response))
    throw new InvalidBatchResponseError('the response is not an object', response);
  const items = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (items === undefined || items === null) return failed;
  if (!Array.isArray(items)) throw new InvalidBatchResponseError('"batchItemFailures" is not an array', response);
  for (const item of items as unknown[]) {
    const id = typeof item === 'object' && item !== null ? (item as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || id.length === 0)
      throw new InvalidBatchResponseError('an entry has no non-empty string "itemIdentifier"', response);
    if (!batchIds.has(id)) throw new InvalidBatchResponseError(`itemIdentifier "${id}" is not a message of this batch`, response);
    failed.add(id);
  }
  return failed;
}

type Verdict = { readonly ids: readonly string[] } | { readonly invalid: InvalidBatchResponseError };

function verdict(all: readonly string[], response: unknown, reportBatchItemFailures: boolean): Verdict {
  if (!reportBatchItemFailures) return { ids: all };
  try {
    const failed = parseBatchResponse(response, new Set(all));
    return { ids: all.filter((id) => !failed.has(id)) };
  } catch (error) {
    if (error instanceof InvalidBatchResponseError) return { invalid: error };
    throw error;
  }
}

/**
 * Which message ids to delete after an invocation. Lambda's rules: a thrown
 * error, a crash or a timeout fails the whole batch; so does a response it
 * cannot honour (see {@link parseBatchResponse}): Lambda retries the whole
 * batch, nothing is deleted. No response (or an empty `batchItemFailures`)
 * means every record succeeded.
 */
export function idsToDelete(
  event: SQSEvent,
  outcome: SqsHandlerResult,
  reportBatchItemFailures = true,
): { readonly ids: readonly string[]; readonly invalid: boolean } {
  if (outcome.kind !== 'returned') return { ids: [], invalid: false };
  const v = verdict(
    event.Records.map((r) => r.messageId),
    outcome.value,
    reportBatchItemFailures,
  );
  return 'invalid' in v ? { ids: [], invalid: true } : { ids: v.ids, invalid: false };
}

/**
 * Receives up to `batchSize` records, 10 per receive; a receive that gives
 * fewer than asked ends the batch (the queue has no more visible now).
 */
export async function receiveBatch(transport: SqsTransport, batchSize: number, signal?: AbortSignal): Promise<SQSRecord[]> {
  const records: SQSRecord[] = [];
  while (records.length < batchSize) {
    const asked = Math.min(10, batchSize - records.length);
    const answer = transport.receive(asked, signal);
    // Not awaiting a synchronous answer keeps concurrent receives on the in-memory queue in call order.
    const got = answer instanceof Promise ? await answer : answer;
    records.push(...got);
    if (got.length < asked) break;
  }
  return records;
}

async function acknowledge(
  transport: SqsTransport,
  records: readonly SQSRecord[],
  ids: readonly string[],
): Promise<Pick<PollBase, 'deleted' | 'deleteRefused'>> {
  const wanted = new Set(ids);
  const toDelete = records.filter((r) => wanted.has(r.messageId));
  const taken = toDelete.length === 0 ? [] : await transport.delete(toDelete);
  return {
    deleted: toDelete.filter((_, i) => taken[i] === true).map((r) => r.messageId),
    deleteRefused: toDelete.filter((_, i) => taken[i] !== true).map((r) => r.messageId),
  };
}

/** Runs one received (non-empty) batch: invoke, then the deletes its response allows. */
export async function runBatch(
  transport: SqsTransport,
  records: readonly SQSRecord[],
  receivedAt: number,
  options: BatchOptions,
): Promise<PollReport> {
  const event = sqsEvent([...records]);
  const messageIds = records.map((r) => r.messageId);
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs(event);
  const context = lambdaContext({ ...options.context, functionName: options.functionName, timeoutMs, clock });
  options.observer?.invoking?.(event);
  const result = await invoke(options.handler, event, { context, timeoutMs, clock });
  options.observer?.invoked?.(event, result);
  const base = { requestId: context.awsRequestId, messageIds, durationMs: result.durationMs };
  const none = { deleted: [], retained: messageIds, deleteRefused: [] };
  if (result.kind !== 'returned') return { outcome: result.kind, error: result.error, ...base, ...none };
  const v = verdict(messageIds, result.value, options.reportBatchItemFailures ?? true);
  if ('invalid' in v) return { outcome: 'invalid-response', error: v.invalid, ...base, ...none };
  const { ids } = v;
  const outcome = ids.length === messageIds.length ? 'succeeded' : 'partial';
  const kept = new Set(ids);
  const retained = messageIds.filter((id) => !kept.has(id));
  if (ids.length > 0 && options.loseAck?.(event) === true) return { outcome, response: result.value, ...base, ...none };
  options.observer?.acknowledging?.(event, ids, receivedAt);
  return { outcome, response: result.value, ...base, retained, ...(await acknowledge(transport, records, ids)) };
}

/** Options of {@link startPolling}. */
export interface PollingOptions extends BatchOptions {
  readonly transport: SqsTransport;
  /** Concurrent pollers, each invoking one batch at a time. */
  readonly pollers: number;
  readonly batchSize: number;
  /** Faults: true hands this batch to two invocations at once, as two pollers given the same messages. */
  readonly deliverTwice?: (event: SQSEvent) => boolean;
  /** Told of each invocation's report. */
  readonly onReport?: (event: SQSEvent, report: PollReport) => void;
}

/** A running mapping. */
export interface Polling {
  /** The error that stopped a poller (the queue went away), if any. */
  error(): unknown;
  /** Stops receiving, waits for the batches in hand to finish (and their deletes); re-throws a poller's error. */
  stop(): Promise<void>;
}

async function pollLoop(options: PollingOptions, signal: AbortSignal): Promise<void> {
  const clock = options.clock ?? systemClock;
  while (!signal.aborted) {
    let records: SQSRecord[];
    try {
      records = await receiveBatch(options.transport, options.batchSize, signal);
    } catch (err) {
      if (signal.aborted) return;
      throw err;
    }
    if (records.length === 0) {
      // A queue that answers "nothing" at once must not starve timers (a real SQS long-polls instead).
      await new Promise<void>((resolve) => setImmediate(resolve));
      continue;
    }
    // The visibility clock started when the queue answered, a moment before now.
    const receivedAt = clock.now();
    const event = sqsEvent(records);
    // Two pollers given the same messages: both invocations really run at once, each deletes what it acknowledged.
    const copies = options.deliverTwice?.(event) === true ? 2 : 1;
    await Promise.all(
      Array.from({ length: copies }, async () => {
        const report = await runBatch(options.transport, records, receivedAt, options);
        options.onReport?.(event, report);
      }),
    );
  }
}

/**
 * Starts `pollers` concurrent receive–invoke–delete loops, as Lambda's
 * pollers do. A poller that fails stops all of them; `error()` says why.
 */
export function startPolling(options: PollingOptions): Polling {
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
