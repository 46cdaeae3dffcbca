/**
 * The defaults of `sqsIdempotency`, in one place: a file of their own, so
 * the claim-only entry takes them without the main entry's option rules.
 */
import type { SQSRecord } from 'aws-lambda';
import { bodyPayload } from '../core/hashing.js';
import type { ProbeMode } from '../core/duplicate-probe.js';
import type { CommitMode } from '../lifecycle/group-commit.js';
import { batchDefaults } from '../lifecycle/options.js';

/** When the records of a batch are claimed: all before the handler, or each just before it runs. */
export type ClaimsMode = 'batch' | 'pipelined';

/**
 * Defaults of `sqsIdempotency`, in one place.
 *
 * @example
 * ```ts
 * import { sqsDefaults } from './sqs-defaults.js';
 * console.log(sqsDefaults.strategy, sqsDefaults.autoSafetyMargin.maxMs); // 'claim' 5000
 * ```
 */
export const sqsDefaults = {
  ...batchDefaults,
  commit: 'group' as CommitMode,
  probeDuplicates: 'auto' as ProbeMode,
  payload: ((record: SQSRecord) => bodyPayload(record.body)) as ((record: SQSRecord) => unknown) | false,
  claims: 'batch' as ClaimsMode,
};
