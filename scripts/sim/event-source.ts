/**
 * The Lambda SQS event source mapping, simulated: receive a batch, invoke the
 * handler with a real `SQSEvent` and `Context`, delete exactly the messages
 * the handler did not report in `batchItemFailures`, leave the rest to come
 * back after the visibility timeout. As Lambda does, a handler that throws,
 * crashes, times out, or returns a response it cannot honour fails the whole
 * batch: nothing is deleted.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Clock } from '../../src/engine/clock.js';
import { checkOptions, is } from '../../src/engine/options.js';
import type { OptionRules } from '../../src/engine/options.js';
import { isAdvanceableClock } from '../../src/testing/clock.js';
import { simDefaults } from './defaults.js';
import type { LambdaHandler } from '../../src/testing/invocation.js';
import { SqsQueueSimulator } from './queue.js';
import type { QueueStats } from './queue.js';
import { clockRule, intIn, required } from '../../src/testing/rules.js';
import { instanceOf } from './rules.js';
import { receiveBatch, runBatch, type PollReport, type SqsTransport } from './sqs-mapping.js';

export { parseBatchResponse } from './sqs-mapping.js';
export type { PollReport } from './sqs-mapping.js';

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

/** The in-memory queue as a transport; it answers synchronously, so concurrent pollers receive in call order. */
function queueTransport(queue: SqsQueueSimulator): SqsTransport {
  return {
    receive: (maxMessages) => queue.receive(maxMessages),
    delete: (records) => records.map((r) => queue.delete(r.receiptHandle)),
  };
}

/**
 * One poll of the event source mapping. Returns what happened; never throws
 * for the handler's failures (they are reported).
 *
 * @example
 * ```ts
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { ManualClock } from 'effectively-once/testing';
 * import { SqsQueueSimulator, runEventSourceMapping } from './index.js';
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
  const transport = queueTransport(queue);
  const clock = options.clock ?? queue.clock;
  const records = await receiveBatch(transport, options.batchSize ?? simDefaults.batchSize);
  const messageIds = records.map((r) => r.messageId);
  if (records.length === 0)
    return { outcome: 'empty', requestId: undefined, messageIds, deleted: [], retained: [], deleteRefused: [], durationMs: 0 };
  const timeoutMs = options.timeoutMs ?? simDefaults.timeoutMs;
  return runBatch(transport, records, clock.now(), {
    handler: options.handler,
    functionName: options.functionName ?? simDefaults.functionName,
    timeoutMs: () => timeoutMs,
    clock,
    ...(options.reportBatchItemFailures === undefined ? {} : { reportBatchItemFailures: options.reportBatchItemFailures }),
  });
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
 * import { ManualClock } from 'effectively-once/testing';
 * import { SqsQueueSimulator, drain } from './index.js';
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
  const { queue, maxPolls = simDefaults.maxPolls, concurrency = 1, onPoll, ...mapping } = options;
  const clock = options.clock ?? queue.clock;
  const outcomes = { empty: 0, succeeded: 0, partial: 0, threw: 0, 'invalid-response': 0, crashed: 0, 'timed-out': 0 };
  let polls = 0;
  let delivered = 0;
  let deleted = 0;
  let clockAdvancedMs = 0;
  const progress = (): DrainProgress => ({
    polls,
    delivered,
    deleted,
    outcomes: { ...outcomes },
    queue: queue.stats(),
    depth: queue.depth(),
    inFlight: queue.inFlight(),
  });
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
