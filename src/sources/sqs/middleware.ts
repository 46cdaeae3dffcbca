/**
 * `sqsIdempotency`: the Middy middleware that makes an SQS-triggered Lambda
 * idempotent per record and answers with a partial batch response covering
 * exactly the records that must come back.
 */
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import { is, type RulesOf } from '../../engine/options.js';
import { metricsWriter } from '../../batch/metrics.js';
import { batchIdempotency } from '../../batch/middleware.js';
import { strategySteps } from '../../batch/strategies/choose.js';
import {
  batchRules,
  commonRules,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
} from '../../engine/middleware-options.js';
import type { ConflictPolicy } from '../../transaction/commit-step.js';
import type { CommitMode } from '../../transaction/group-commit/queue.js';
import type { ProbeMode } from '../../transaction/group-commit/duplicate-probe.js';
import { heartbeatOn } from '../../engine/heartbeat.js';
import { backoffRule, permanentFailuresRule, sqsAfterSettle, type BackoffOptions, type PermanentFailureOptions } from './after-settle.js';
import { sqsDefaults, type ClaimsMode } from './defaults.js';
import { sqsSource } from './adapter.js';

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
   * Transaction strategy: how records' transactions are sent. `'group'`
   * (default): once no handler of the batch is running, the waiting records
   * commit together (group commit, usually one `TransactWriteItems` per
   * batch), each still atomic on its own. `'record'`: each record commits
   * right after its handler, in its own `TransactWriteItems`. See
   * docs/transactions.md, "Group commit".
   */
  readonly commit?: CommitMode;
  /**
   * Transaction strategy with group commit: when to read the batch's
   * idempotency records first (one strongly consistent `BatchGetItem`, sent
   * while the handlers run), so that a record already COMPLETED is answered
   * as a duplicate without cancelling the batch's transaction. `'auto'`
   * (default): when this container's recent records were duplicates often
   * enough to pay for the read; `'always'`; `'never'`. See
   * docs/transactions.md, "Group commit".
   */
  readonly probeDuplicates?: ProbeMode;
  /**
   * Records are not started when less than this remains (ms). Default: 20 %
   * of the time left when the batch starts, at most 5000 (so a 3 s function
   * keeps 600 ms).
   */
  readonly safetyMarginMs?: number;
  /**
   * Send permanent failures (a `PermanentError`, an error `isPermanent`
   * names, an invalid record) straight to the DLQ and acknowledge them once
   * SQS took the copy. Needs `@aws-sdk/client-sqs`. Default: off.
   */
  readonly permanentFailures?: PermanentFailureOptions;
  /**
   * Give each record that comes back a visibility timeout from an
   * exponential backoff on its receive count, with full jitter. Needs
   * `@aws-sdk/client-sqs`. Default: off (the queue's visibility timeout).
   */
  readonly backoff?: BackoffOptions;
  /**
   * Claim strategy with `eachRecord`: `'batch'` (default) claims every record
   * before the handler runs; `'pipelined'` starts each record as soon as its
   * own claim returns. Pipelined hands the handler an event with no records
   * (none is known to be claimed yet), so it needs the handler wrapped in
   * `eachRecord`: a handler that reads `event.Records` itself sees none, and
   * every record comes back. FIFO batches are claimed as a batch either way.
   */
  readonly claims?: ClaimsMode;
}

export type { ClaimsMode } from './defaults.js';

export { sqsDefaults } from './defaults.js';

const sqsRules = {
  ...commonRules,
  ...recordRules,
  ...batchRules,
  commit: is.oneOf('group', 'record'),
  probeDuplicates: is.oneOf('auto', 'always', 'never'),
  permanentFailures: permanentFailuresRule,
  backoff: backoffRule,
  claims: is.oneOf('batch', 'pipelined'),
} satisfies RulesOf<SqsIdempotencyOptions>;

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
  const resolved = resolveMiddlewareOptions(sqsSource.owner, options, sqsRules, sqsDefaults);
  if (resolved.claims === 'pipelined' && resolved.strategy !== 'claim') {
    throw new TypeError(
      `${sqsSource.owner}: option "claims" may be "pipelined" only with strategy "claim" (a transaction claims nothing).`,
    );
  }
  if (resolved.claims === 'pipelined' && heartbeatOn(options.lease?.heartbeat)) {
    throw new TypeError(`${sqsSource.owner}: option "claims" may be "pipelined" only without a lease heartbeat (choose one).`);
  }
  return batchIdempotency(sqsSource, {
    ...resolved,
    afterSettle: sqsAfterSettle(options.permanentFailures, options.backoff),
    steps: strategySteps(sqsSource.owner, resolved),
    writeMetrics: metricsWriter(resolved.metrics),
  });
}
