/**
 * The defaults of `sqsIdempotency`, in one place: a file of their own, so
 * the claim-only entry takes them without the main entry's option rules.
 */
import type { SQSRecord } from 'aws-lambda';
import { bodyPayload } from '../core/hashing.js';
import type { ProbeMode } from '../core/duplicate-probe.js';
import type { AutoMargin } from '../core/lease.js';
import type { CommitMode } from '../lifecycle/group-commit.js';
import { commonDefaults } from '../lifecycle/options.js';
import type { ConflictPolicy } from '../lifecycle/transaction-commit.js';

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
  ...commonDefaults,
  storeResult: false,
  onConflict: 'fail' as ConflictPolicy,
  commit: 'group' as CommitMode,
  probeDuplicates: 'auto' as ProbeMode,
  /** Used when `safetyMarginMs` is not given. */
  autoSafetyMargin: { maxMs: 5_000, fraction: 0.2 } satisfies AutoMargin,
  payload: ((record: SQSRecord) => bodyPayload(record.body)) as ((record: SQSRecord) => unknown) | false,
  claims: 'batch' as ClaimsMode,
};
