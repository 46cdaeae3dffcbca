import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { BusinessKey } from '../../engine/keys.js';
import type { RulesOf } from '../../engine/options.js';
import type { PreviousRecords } from '../../engine/previous.js';
import { batchIdempotency } from '../../batch/middleware.js';
import {
  batchRules,
  commonRules,
  previousRule,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
  type SqsStrategyOption,
} from '../../batch/options.js';
import { settlePluginRule } from './plugins.js';
import type { DeadLetterPlugin } from './dead-letter.js';
import type { BackoffPlugin } from './backoff.js';
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
   * Permanent failures (a `PermanentError`, an error its `isPermanent` names,
   * an invalid record) straight to the DLQ: `deadLetter({ sqs })`. Default: none.
   */
  readonly deadLetter?: DeadLetterPlugin;
  /**
   * A visibility timeout from an exponential backoff for each record that
   * comes back: `backoff({ sqs })`. Default: none (the queue's visibility timeout).
   */
  readonly backoff?: BackoffPlugin;
  /**
   * Switching from AWS Powertools idempotency: `powertoolsRecords({...})`
   * from `effectively-once/powertools`. Until its `until`, a record about to
   * run is first looked up in Powertools' table: one Powertools completed is
   * acknowledged without running, one it still holds comes back later.
   * Default: none. See docs/migrating-from-powertools.md.
   */
  readonly previous?: PreviousRecords<SQSRecord>;
}

export { sqsDefaults } from './defaults.js';

const sqsRules = {
  ...commonRules,
  ...recordRules,
  ...batchRules,
  deadLetter: settlePluginRule('deadLetter'),
  backoff: settlePluginRule('backoff'),
  previous: previousRule,
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
 * import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
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
  const strategy = settings.strategy ?? defaultClaim;
  return batchIdempotency(sqsSource, {
    ...settings,
    owner: SQS_MIDDLEWARE,
    // The DLQ first, so a dead-lettered record is not backed off; the chain comes with the plug-ins (none given: no step).
    afterSettle: (options.deadLetter ?? options.backoff)?.chain([options.deadLetter, options.backoff]),
    steps: strategy.batch({ store, storeResult, lease, owner: SQS_MIDDLEWARE }),
  });
}
