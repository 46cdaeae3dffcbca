/**
 * `sqsIdempotency`: the Middy middleware that makes an SQS-triggered Lambda
 * idempotent per record and answers with a partial batch response covering
 * exactly the records that must come back.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DeadlineError } from '../core/errors.js';
import { bodyPayload } from '../core/hashing.js';
import type { BusinessKey } from '../core/keys.js';
import { leaseDuration, safetyMargin, type AutoMargin } from '../core/lease.js';
import { is, type RulesOf } from '../core/options.js';
import { acknowledged, type RecordOutcome } from '../core/outcomes.js';
import { attachRunner, detachRunner } from '../lifecycle/runner-link.js';
import { remainingTime } from '../lifecycle/time.js';
import { batchLine } from '../lifecycle/log.js';
import { admitBatch, type Admission } from '../lifecycle/admit.js';
import { SqsRun, type RunRecord } from '../lifecycle/batch-run.js';
import { settleClaim, type Execution } from '../lifecycle/settle.js';
import {
  commonDefaults,
  commonRules,
  recordRules,
  resolveMiddlewareOptions,
  consumerName,
  type CommonIdempotencyOptions,
} from '../lifecycle/options.js';
import type { ConflictPolicy } from '../lifecycle/transaction-commit.js';

/** Options of {@link sqsIdempotency}. */
export interface SqsIdempotencyOptions extends CommonIdempotencyOptions {
  /** The business key of a record (not the message id: a re-sent event gets a new one). See `jsonBody`. */
  readonly key: (record: SQSRecord) => BusinessKey | undefined | null;
  /**
   * What must not change under the same key (flagged when it does). Default:
   * the body, as the JSON value it holds (key order and spacing do not count;
   * a body that is not JSON is compared as text). `(r) => r.body`: the raw
   * text. `false`: no check.
   */
  readonly payload?: ((record: SQSRecord) => unknown) | false;
  /** Transaction strategy: a failed business condition is retried (`fail`, default) or final (`acknowledge`). */
  readonly onConflict?: ConflictPolicy;
  /**
   * Records are not started when less than this remains (ms). Default: 20 %
   * of the time left when the batch starts, at most 5000 (so a 3 s function
   * keeps 600 ms).
   */
  readonly safetyMarginMs?: number;
}

/**
 * Defaults of {@link sqsIdempotency}, in one place.
 *
 * @example
 * ```ts
 * import { sqsDefaults } from 'effectively-once';
 * console.log(sqsDefaults.strategy, sqsDefaults.autoSafetyMargin.maxMs); // 'claim' 5000
 * ```
 */
export const sqsDefaults = {
  ...commonDefaults,
  storeResult: false,
  onConflict: 'fail' as ConflictPolicy,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 5_000, fraction: 0.2 } satisfies AutoMargin,
  payload: ((record: SQSRecord) => bodyPayload(record.body)) as ((record: SQSRecord) => unknown) | false,
};

const NAME = 'sqsIdempotency';

const sqsRules = {
  ...commonRules,
  ...recordRules,
  onConflict: is.oneOf('fail', 'acknowledge'),
  safetyMarginMs: is.nonNegativeMs,
} satisfies RulesOf<SqsIdempotencyOptions>;

/** Per-invocation state between before and after. */
interface BatchState {
  readonly original: readonly SQSRecord[];
  readonly settled: Map<string, RecordOutcome>;
  readonly ids: Map<string, string>;
  readonly run: SqsRun;
  readonly consumer: string;
  readonly startedAt: number;
}

/**
 * Why the event cannot be an SQS event, or `undefined`. Only what no
 * per-record outcome can answer fails the whole event: a record that cannot be
 * reported in `batchItemFailures` (no message id), or one from another event
 * source (the function is wired to the wrong trigger). A record without a body
 * fails alone (see `admitBatch`).
 */
function notSqsReason(event: unknown): string | undefined {
  const records: unknown = (event as { Records?: unknown } | null | undefined)?.Records;
  if (!Array.isArray(records)) return 'it has no Records array';
  for (const [i, r] of records.entries()) {
    const record = r as Partial<SQSRecord> | null;
    if (typeof record?.messageId !== 'string') return `record ${i} has no string messageId`;
    if (record.eventSource !== undefined && record.eventSource !== 'aws:sqs') {
      return `record ${i} comes from ${JSON.stringify(record.eventSource)}, not "aws:sqs"`;
    }
  }
  return undefined;
}

function assertSqsEvent(event: unknown): asserts event is SQSEvent {
  const reason = notSqsReason(event);
  if (reason !== undefined) throw new TypeError(`${NAME}: the event is not an SQS event: ${reason}.`);
}

/**
 * Makes an SQS batch handler idempotent per business key, with DynamoDB
 * conditional writes, and returns `{ batchItemFailures }` for exactly the
 * records that must be retried. Pair it with {@link eachRecord}.
 *
 * @throws TypeError when an option is unknown or of the wrong type (at build time).
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
 * import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({ store, consumer: 'payments', key: (r) => jsonBody<{ orderNo: string }>(r).orderNo }))
 *   .handler(eachRecord(async (record) => {
 *     console.log('charging', record.body);
 *   }));
 * ```
 */
export function sqsIdempotency(options: SqsIdempotencyOptions): MiddlewareObj<SQSEvent, SQSBatchResponse> {
  const config = resolveMiddlewareOptions(NAME, options, sqsRules, sqsDefaults);
  const { store, logger } = config;
  const transactional = config.strategy === 'transaction';
  // Keyed by the Middy request object: unique per invocation, even when tests reuse a context.
  const states = new WeakMap<object, BatchState>();

  async function sqsIdempotencyBefore(request: Request<SQSEvent, SQSBatchResponse>): Promise<SQSBatchResponse | undefined> {
    assertSqsEvent(request.event);
    const startedAt = Date.now();
    const consumer = consumerName(NAME, config.consumer, request.context?.functionName);
    const remaining = remainingTime(request.context);
    const leaseMs = leaseDuration(remaining, config.lease);
    const margin = safetyMargin(remaining, options.safetyMarginMs, config.autoSafetyMargin);
    const original = request.event.Records;
    const admissions = await admitBatch(original, { ...config, consumer, claim: !transactional, leaseMs });
    const state = stateFrom(admissions, original, { consumer, startedAt, margin });
    if (state.run.ownedRecords.length === 0) return finish(state, new Map());
    const event: SQSEvent = { ...request.event, Records: [...state.run.ownedRecords] };
    attachRunner(event, request.context, state.run);
    request.event = event;
    states.set(request, state);
    return undefined;
  }

  function stateFrom(
    admissions: Admission[],
    original: readonly SQSRecord[],
    { consumer, startedAt, margin }: { consumer: string; startedAt: number; margin: number },
  ): BatchState {
    const settled = new Map<string, RecordOutcome>();
    const ids = new Map<string, string>();
    const given: RunRecord[] = [];
    for (const a of admissions) {
      if (a.kind === 'settled') {
        settled.set(a.record.messageId, a.outcome);
        if (a.id !== undefined) ids.set(a.record.messageId, a.id);
        continue;
      }
      ids.set(a.record.messageId, a.owned.id);
      given.push(a.kind === 'owned' ? a : { record: a.record, owned: a.owned, leader: a.leader });
    }
    const run = new SqsRun(given, { ...config, consumer, transactional, safetyMarginMs: margin });
    return { original, settled, ids, run, consumer, startedAt };
  }

  /** Finished records keep their executions; running ones keep their claims (interrupted); the rest are released. */
  function unfinishedExecutions(state: BatchState, running: ReadonlySet<string>, error: unknown): Map<string, Execution> {
    const executions = new Map(state.run.executions);
    for (const record of state.run.ownedRecords) {
      if (executions.has(record.messageId)) continue;
      executions.set(record.messageId, running.has(record.messageId) ? { kind: 'interrupted', error } : { kind: 'threw', error });
    }
    return executions;
  }

  /** Executions for records the handler ran without `eachRecord`: its own batchItemFailures decide. */
  function executionsFromResponse(state: BatchState, response: unknown): Map<string, Execution> {
    const executions = new Map(state.run.executions);
    const failed = new Set(
      ((response as SQSBatchResponse | undefined)?.batchItemFailures ?? []).map((f) => f.itemIdentifier),
    );
    for (const record of state.run.ownedRecords) {
      if (executions.has(record.messageId)) continue;
      const error = transactional
        ? new TypeError(`${NAME}: strategy "transaction" needs the handler wrapped in eachRecord().`)
        : new Error('Reported in the handler’s batchItemFailures.');
      const failedHere = transactional || failed.has(record.messageId);
      executions.set(record.messageId, failedHere ? { kind: 'threw', error } : { kind: 'succeeded', result: undefined });
    }
    return executions;
  }

  async function finish(state: BatchState, executions: Map<string, Execution>): Promise<SQSBatchResponse> {
    const ownedOutcomes = await Promise.all(
      state.run.ownedRecords.map(async (record) => {
        const owned = state.run.ownedRecord(record.messageId);
        const execution = executions.get(record.messageId) ?? { kind: 'not-started', reason: 'handler-threw' };
        return settleClaim(store, owned, execution, config.storeResult);
      }),
    );
    for (const outcome of ownedOutcomes) state.settled.set(outcome.messageId, outcome);
    for (const outcome of state.run.followerOutcomes(state.settled)) state.settled.set(outcome.messageId, outcome);
    // A record with no outcome is retried: a gap here must never turn into a silent acknowledgement.
    const outcomes = state.original.map(
      (r): RecordOutcome => state.settled.get(r.messageId) ?? { kind: 'not-started', messageId: r.messageId, reason: 'handler-threw' },
    );
    if (logger !== false) {
      logger(batchLine('sqs', state.consumer, config.strategy, outcomes, (o) => state.ids.get(o.messageId), Date.now() - state.startedAt));
    }
    const batchItemFailures = outcomes.filter((o) => !acknowledged(o)).map((o) => ({ itemIdentifier: o.messageId }));
    return { batchItemFailures };
  }

  async function sqsIdempotencyAfter(request: Request<SQSEvent, SQSBatchResponse>): Promise<void> {
    const state = states.get(request);
    if (state === undefined) return;
    states.delete(request);
    detachRunner(state.run);
    const running = state.run.close();
    // With eachRecord, a record without an execution was cut short (e.g. by a
    // timeout response that returns instead of throwing): never acknowledge it.
    const executions = state.run.begun
      ? unfinishedExecutions(state, running, new DeadlineError('The batch was answered before this record finished.'))
      : executionsFromResponse(state, request.response);
    request.response = await finish(state, executions);
  }

  async function sqsIdempotencyOnError(request: Request<SQSEvent, SQSBatchResponse>): Promise<void> {
    const state = states.get(request);
    if (state === undefined) return; // failed before claiming anything: let the error through
    states.delete(request);
    detachRunner(state.run);
    // Records the handler finished keep their executions; those still running
    // keep their claims until the lease passes; the rest are released. All
    // but the finished ones are reported failed.
    const running = state.run.close();
    request.response = await finish(state, unfinishedExecutions(state, running, request.error));
  }

  return { before: sqsIdempotencyBefore, after: sqsIdempotencyAfter, onError: sqsIdempotencyOnError, name: NAME };
}
