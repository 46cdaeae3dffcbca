/**
 * The defaults of `sqsIdempotency`, in one place: a file of their own, so
 * the claim-only entry takes them without the main entry's option rules.
 */
import type { SQSRecord } from 'aws-lambda';
import { bodyPayload } from '../../engine/hashing.js';
import { batchDefaults, transactionDefaults } from '../../engine/middleware-options.js';

/** The middleware's name, which its errors begin with (both entries' `sqsIdempotency`). */
export const SQS_MIDDLEWARE = 'sqsIdempotency';

/** When the records of a batch are claimed (`claim({ pipelined })`): all before the handler, or each just before it runs. */
export type ClaimsMode = 'batch' | 'pipelined';

/**
 * Defaults of `sqsIdempotency`, in one place.
 *
 * @example
 * ```ts
 * import { sqsDefaults } from './defaults.js';
 * console.log(sqsDefaults.strategy, sqsDefaults.autoSafetyMargin.maxMs); // 'claim' 5000
 * ```
 */
export const sqsDefaults = {
  ...batchDefaults,
  commit: transactionDefaults.commit,
  probeDuplicates: transactionDefaults.probeDuplicates,
  payload: ((record: SQSRecord) => bodyPayload(record.body)) as ((record: SQSRecord) => unknown) | false,
  claims: 'batch' as ClaimsMode,
};
