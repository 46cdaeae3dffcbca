/**
 * Reading DynamoDB errors: which failed condition (ours or the handler's) or
 * retryable reason cancelled a transaction, and the record a failed condition
 * returned. Errors are recognised by `name`, not `instanceof`, because the
 * injected client may come from another copy of the SDK than ours.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { CancellationReasonInfo } from '../../engine/errors.js';
import { isAwsError } from './refusals.js';

/** One raw entry of `CancellationReasons`, in wire format (the DocumentClient does not unmarshall errors). */
export interface RawCancellationReason {
  readonly Code?: string;
  readonly Message?: string;
  readonly Item?: Record<string, AttributeValue>;
}

/** What cancelled a transaction whose action 0 is the idempotency record. */
export type CancellationVerdict =
  /** The idempotency condition failed: the key is COMPLETED or claimed. `item` is the record, when returned. */
  | { readonly kind: 'idempotency'; readonly item?: Record<string, AttributeValue> }
  /** A handler condition failed; reasons are indexed relative to the handler's actions. */
  | { readonly kind: 'business'; readonly reasons: CancellationReasonInfo[] }
  /** Contention or throttling: nothing was written, trying again may succeed. */
  | { readonly kind: 'retryable' }
  /** Anything else (validation, item collection size): the original error is rethrown. */
  | { readonly kind: 'other' };

const CONDITION_FAILED = 'ConditionalCheckFailed';
const RETRYABLE: ReadonlySet<string> = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

/** The `CancellationReasons` of a `TransactionCanceledException`, or `undefined` for any other error. */
export function cancellationReasons(err: unknown): readonly RawCancellationReason[] | undefined {
  if (!isAwsError(err, 'TransactionCanceledException')) return undefined;
  const reasons = err['CancellationReasons'];
  return Array.isArray(reasons) ? (reasons as RawCancellationReason[]) : [];
}

function toInfo(reason: RawCancellationReason, index: number): CancellationReasonInfo {
  const info: { index: number; code: string; message?: string; item?: Record<string, unknown> } = {
    index,
    code: reason.Code ?? 'None',
  };
  if (reason.Message !== undefined) info.message = reason.Message;
  if (reason.Item !== undefined) info.item = unmarshall(reason.Item);
  return info;
}

/**
 * Classifies the reasons of a cancelled transaction whose first action is
 * the idempotency record. Our condition wins over a business one: when the
 * key is already taken, the handler's conditions are beside the point.
 */
export function classifyCancellation(reasons: readonly RawCancellationReason[]): CancellationVerdict {
  const [own, ...business] = reasons;
  if (own?.Code === CONDITION_FAILED) return own.Item === undefined ? { kind: 'idempotency' } : { kind: 'idempotency', item: own.Item };
  if (business.some((r) => r.Code === CONDITION_FAILED)) {
    return { kind: 'business', reasons: business.map(toInfo) };
  }
  if (reasons.some((r) => r.Code !== undefined && RETRYABLE.has(r.Code))) return { kind: 'retryable' };
  return { kind: 'other' };
}
