/**
 * The Lambda SQS event source mapping, simulated: receive a batch, invoke the
 * handler with a real `SQSEvent` and `Context`, delete exactly the messages
 * the handler did not report in `batchItemFailures`, leave the rest to come
 * back after the visibility timeout. As Lambda does, a handler that throws,
 * crashes, times out, or returns a response it cannot honour fails the whole
 * batch: nothing is deleted.
 */
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Clock } from '../core/clock.js';
import { checkOptions, is } from '../core/options.js';
import type { OptionRules } from '../core/options.js';
import { isAdvanceableClock } from './clock.js';
import { testingDefaults } from './defaults.js';
import { InvalidBatchResponseError } from './errors.js';
import { sqsEvent } from './events.js';
import { invoke } from './invocation.js';
import type { LambdaHandler } from './invocation.js';
import { SqsQueueSimulator } from './queue.js';
import type { QueueStats } from './queue.js';
import { clockRule, instanceOf, intIn, required } from './rules.js';

/** An SQS-triggered handler (a Middy-wrapped `middy<SQSEvent, SQSBatchResponse>()` handler fits). */
export type SqsLambdaHandler = LambdaHandler<SQSEvent, SQSBatchResponse | void>;

/** Options of {@link runEventSourceMapping}. */
export interface EventSourceMappingOptions {
  readonly queue: SqsQueueSimulator;
  readonly handler: SqsLambdaHandler;
  /** Records per invocation, 1..10 000 (FIFO: 1..10); default 10. */
  readonly batchSize?: number;
  readonly functionName?: string;
  /** Function timeout in ms (default 3000). */
  readonly timeoutMs?: number;
  /** Default: the queue's clock. */
  readonly clock?: Clock;
  /** `functionResponseType: ReportBatchItemFailures` (default true). When false, any return deletes the whole batch. */
  readonly reportBatchItemFailures?: boolean;
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

/** The mapping's rules; `batchSize`'s range depends on the queue (FIFO: 1..10), which is checked first. */
function mappingRules(options: { readonly queue?: unknown }): OptionRules {
  const fifo = options.queue instanceof SqsQueueSimulator && options.queue.fifo;
  return {
    queue: required(instanceOf('an SqsQueueSimulator', SqsQueueSimulator)),
    handler: required(is.fn),
    batchSize: intIn(1, fifo ? 10 : 10_000),
    functionName: is.nonEmptyString,
    timeoutMs: intIn(1, 900_000),
    clock: clockRule,
    reportBatchItemFailures: is.boolean,
  };
}

function receiveBatch(queue: SqsQueueSimulator, batchSize: number): SQSRecord[] {
  const records: SQSRecord[] = [];
  while (records.length < batchSize) {
    const got = queue.receive(Math.min(10, batchSize - records.length));
    records.push(...got);
    if (got.length === 0) break;
  }
  return records;
}

/**
 * The message ids the response reports as failed. Throws
 * `InvalidBatchResponseError` for a response Lambda would treat as a complete
 * failure; `undefined`, `null`, `{}` and an empty list mean full success.
 * Exported for local event source mappings over other queues (e.g. a local SQS server).
 *
 * @example
 * ```ts
 * import { parseBatchResponse } from 'effectively-once/testing';
 * const failed = parseBatchResponse({ batchItemFailures: [{ itemIdentifier: 'm-2' }] }, new Set(['m-1', 'm-2']));
 * console.log([...failed]); // ['m-2']
 * ```
 */
export function parseBatchResponse(response: unknown, batchIds: ReadonlySet<string>): Set<string> {
  const failed = new Set<string>();
  if (response === undefined || response === null) return failed;
  if (typeof response !== 'object' || Array.isArray(response)) throw new InvalidBatchResponseError('the response is not an object', response);
  const items = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (items === undefined || items === null) return failed;
  if (!Array.isArray(items)) throw new InvalidBatchResponseError('"batchItemFailures" is not an array', response);
  for (const item of items as unknown[]) {
    const id = typeof item === 'object' && item !== null ? (item as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || id.length === 0) throw new InvalidBatchResponseError('an entry has no non-empty string "itemIdentifier"', response);
    if (!batchIds.has(id)) throw new InvalidBatchResponseError(`itemIdentifier "${id}" is not a message of this batch`, response);
    failed.add(id);
  }
  return failed;
}

function acknowledge(queue: SqsQueueSimulator, records: readonly SQSRecord[], failed: ReadonlySet<string>): Pick<PollBase, 'deleted' | 'retained' | 'deleteRefused'> {
  const deleted: string[] = [];
  const retained: string[] = [];
  const deleteRefused: string[] = [];
  for (const record of records) {
    if (failed.has(record.messageId)) retained.push(record.messageId);
    else if (queue.delete(record.receiptHandle)) deleted.push(record.messageId);
    else deleteRefused.push(record.messageId);
  }
  return { deleted, retained, deleteRefused };
}

/**
 * One poll of the event source mapping. Returns what happened; never throws
 * for the handler's failures (they are reported).
 *
 * @example
 * ```ts
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { ManualClock, SqsQueueSimulator, runEventSourceMapping } from 'effectively-once/testing';
 * const clock = new ManualClock();
 * const queue = new SqsQueueSimulator({ clock });
 * queue.send('ok'); queue.send('bad');
 * const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => ({
 *   batchItemFailures: event.Records.filter((r) => r.body === 'bad').map((r) => ({ itemIdentifier: r.messageId })),
 * });
 * const report = await runEventSourceMapping({ queue, handler, clock });
 * console.log(report.outcome, report.deleted.length, report.retained.length); // 'partial' 1 1
 * ```
 */
export async function runEventSourceMapping(options: EventSourceMappingOptions): Promise<PollReport> {
  checkOptions('runEventSourceMapping', options, mappingRules(options));
  return poll(options);
}

async function poll(options: EventSourceMappingOptions): Promise<PollReport> {
  const { queue } = options;
  const records = receiveBatch(queue, options.batchSize ?? testingDefaults.batchSize);
  const messageIds = records.map((r) => r.messageId);
  const none = { deleted: [], retained: messageIds, deleteRefused: [] };
  if (records.length === 0) return { outcome: 'empty', requestId: undefined, messageIds, ...none, durationMs: 0 };
  const result = await invoke(options.handler, sqsEvent(records), {
    functionName: options.functionName ?? testingDefaults.functionName,
    timeoutMs: options.timeoutMs ?? testingDefaults.timeoutMs,
    clock: options.clock ?? queue.clock,
  });
  const base = { requestId: result.context.awsRequestId, messageIds, durationMs: result.durationMs };
  if (result.outcome !== 'returned') return { outcome: result.outcome, error: result.error, ...base, ...none };
  let failed: Set<string>;
  try {
    failed = options.reportBatchItemFailures === false ? new Set() : parseBatchResponse(result.value, new Set(messageIds));
  } catch (error) {
    return { outcome: 'invalid-response', error, ...base, ...none };
  }
  const outcome = failed.size === 0 ? 'succeeded' : 'partial';
  return { outcome, response: result.value, ...base, ...acknowledge(queue, records, failed) };
}

/** Options of {@link drain}. */
export interface DrainOptions extends EventSourceMappingOptions {
  /** Stop after this many polls even if messages remain (default 10 000). */
  readonly maxPolls?: number;
  /** Pollers running at once, like concurrent Lambda invocations (default 1). */
  readonly concurrency?: number;
  /** Called after every poll. */
  readonly onPoll?: (report: PollReport, progress: DrainProgress) => void;
}

/** Running totals of a {@link drain}. */
export interface DrainProgress {
  readonly polls: number;
  /** Records delivered to the handler (redeliveries included). */
  readonly delivered: number;
  readonly deleted: number;
  /** Polls by outcome. */
  readonly outcomes: Readonly<Record<PollReport['outcome'], number>>;
  readonly queue: QueueStats;
  readonly depth: number;
  readonly inFlight: number;
}

/** How a {@link drain} ended. */
export interface DrainReport extends DrainProgress {
  /** True when the queue ended empty (nothing waiting, nothing in flight). */
  readonly drained: boolean;
  /** How far `drain` moved the clock to let visibility timeouts expire. */
  readonly clockAdvancedMs: number;
}

async function waitForRedelivery(queue: SqsQueueSimulator, clock: Clock): Promise<number> {
  const next = queue.nextVisibleAt();
  if (next === undefined) return 0;
  const wait = Math.max(0, next - clock.now());
  if (isAdvanceableClock(clock)) clock.advance(wait);
  else await new Promise<void>((resolve) => setTimeout(resolve, wait));
  return wait;
}

function drainRules(options: DrainOptions): OptionRules {
  return { ...mappingRules(options), maxPolls: intIn(1), concurrency: intIn(1, 1000), onPoll: is.fn };
}

/**
 * Polls until the queue is empty and nothing is in flight, or `maxPolls` is
 * reached. When a poll finds nothing but messages are in flight, it moves the
 * clock (or waits, with a wall clock) to the next visibility expiry.
 *
 * @example
 * ```ts
 * import { ManualClock, SqsQueueSimulator, drain } from 'effectively-once/testing';
 * const clock = new ManualClock();
 * const dlq = new SqsQueueSimulator({ name: 'dlq', clock });
 * const queue = new SqsQueueSimulator({ clock, maxReceiveCount: 3, deadLetterQueue: dlq });
 * queue.send('poison');
 * const report = await drain({ queue, clock, handler: async () => { throw new Error('boom'); } });
 * console.log(report.drained, dlq.size()); // true 1
 * ```
 */
export async function drain(options: DrainOptions): Promise<DrainReport> {
  checkOptions('drain', options, drainRules(options));
  const { queue, maxPolls = testingDefaults.maxPolls, concurrency = 1, onPoll, ...mapping } = options;
  const clock = options.clock ?? queue.clock;
  const outcomes = { empty: 0, succeeded: 0, partial: 0, threw: 0, 'invalid-response': 0, crashed: 0, 'timed-out': 0 };
  let polls = 0;
  let delivered = 0;
  let deleted = 0;
  let clockAdvancedMs = 0;
  const progress = (): DrainProgress => ({ polls, delivered, deleted, outcomes: { ...outcomes }, queue: queue.stats(), depth: queue.depth(), inFlight: queue.inFlight() });
  while (polls < maxPolls && queue.size() > 0) {
    const pollers = Math.min(concurrency, maxPolls - polls);
    const reports = await Promise.all(Array.from({ length: pollers }, () => poll({ ...mapping, queue })));
    for (const report of reports) {
      polls += 1;
      delivered += report.messageIds.length;
      deleted += report.deleted.length;
      outcomes[report.outcome] += 1;
      onPoll?.(report, progress());
    }
    if (reports.every((r) => r.outcome === 'empty')) clockAdvancedMs += await waitForRedelivery(queue, clock);
  }
  return { ...progress(), drained: queue.size() === 0, clockAdvancedMs };
}
