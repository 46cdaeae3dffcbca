/**
 * `sqsIdempotency`: the Middy middleware that makes an SQS-triggered Lambda
 * idempotent per record and answers with a partial batch response covering
 * exactly the records that must come back.
 */
import type { SqsClientLike } from './sqs-client.js';
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import { is, type RulesOf } from '../../engine/options.js';
import { metricsWriter } from '../../batch/metrics.js';
import { batchIdempotency } from '../../batch/middleware.js';
import {
  batchRules,
  commonRules,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
  type SqsStrategyOption,
} from '../../batch/options.js';
import {
  backoffRule,
  hasSend,
  permanentFailuresRule,
  sqsAfterSettle,
  type BackoffOptions,
  type PermanentFailureOptions,
} from './after-settle.js';
import { SQS_MIDDLEWARE, sqsDefaults } from './defaults.js';
import { defaultClaim } from '../../strategies/claim/steps.js';
import { sqsSource } from './adapter.js';

/**
 * Options of {@link sqsIdempotency}. `strategy` also takes
 * `claim({ pipelined: true })` and `transaction({ commit, probeDuplicates })`,
 * which shape how an SQS batch is claimed and committed.
 */
export interface SqsIdempotencyOptions extends CommonIdempotencyOptions<SqsStrategyOption> {
  /** The business key of a record (not the message id: a re-sent event gets a new one). See `jsonBody`. */
  readonly key: (record: SQSRecord) => BusinessKey | undefined | null;
  /**
   * What must not change under the same key (flagged when it does). Default:
   * the body, as the JSON value it holds (key order and spacing do not count;
   * a body that is not JSON is compared as text). `(r) => r.body`: the raw
   * text. `false`: no check.
   */
  readonly payload?: ((record: SQSRecord) => unknown) | false;
  /**
   * Records are not started when less than this remains (ms). Default: 20 %
   * of the time left when the batch starts, at most 5000 (so a 3 s function
   * keeps 600 ms).
   */
  readonly safetyMarginMs?: number;
  /**
   * The SQS client that `permanentFailures` and `backoff` send through
   * (`@aws-sdk/client-sqs`); required with either of them.
   */
  readonly sqs?: SqsClientLike;
  /**
   * A queue ARN's URL, for `permanentFailures` and `backoff`. Default:
   * `https://sqs.<region>.amazonaws.com/<account>/<name>`.
   */
  readonly queueUrl?: (queueArn: string) => string;
  /**
   * Send permanent failures (a `PermanentError`, an error `isPermanent`
   * names, an invalid record) straight to the DLQ and acknowledge them once
   * SQS took the copy, through the `sqs` client. Default: off.
   */
  readonly permanentFailures?: PermanentFailureOptions;
  /**
   * Give each record that comes back a visibility timeout from an
   * exponential backoff on its receive count, with full jitter, through the
   * `sqs` client. Default: off (the queue's visibility timeout).
   */
  readonly backoff?: BackoffOptions;
}

export { sqsDefaults } from './defaults.js';

const sqsRules = {
  ...commonRules,
  ...recordRules,
  ...batchRules,
  sqs: { expected: 'an SQSClient (an object with send)', check: hasSend },
  queueUrl: is.fn,
  permanentFailures: permanentFailuresRule,
  backoff: backoffRule,
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
  // Resolved once, here: the lifecycle reads this one settings object, and the strategy gets only what its steps use.
  const settings = resolveMiddlewareOptions(SQS_MIDDLEWARE, options, sqsRules, sqsDefaults, { pipelined: true, commitSettings: true });
  const { store, storeResult, lease } = settings;
  return batchIdempotency(sqsSource, {
    ...settings,
    owner: SQS_MIDDLEWARE,
    afterSettle: sqsAfterSettle(SQS_MIDDLEWARE, options),
    steps: (settings.strategy ?? defaultClaim).batch({ store, storeResult, lease, owner: SQS_MIDDLEWARE }),
    writeMetrics: metricsWriter(settings.metrics),
  });
}
