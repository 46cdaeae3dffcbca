/**
 * How the DynamoDB store words a refused write: the reasons of a cancelled
 * transaction, a record too large to store, a fenced write whose lease was lost.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ItemTooLargeError } from '../../engine/errors.js';
import { MAX_ITEM_BYTES } from '../../engine/size.js';
import { recordFromWire } from './records.js';
import type { FencedWriteResult } from '../../engine/store.js';

/** Whether `err` is a DynamoDB error with this `name`. */
export function isAwsError(err: unknown, name: string): err is Error & Record<string, unknown> {
  return err instanceof Error && err.name === name;
}

/** The failed actions of a cancelled transaction, for an error message. */
export function describeReasons(reasons: ReadonlyArray<{ index: number; code: string }>): string {
  return reasons
    .filter((r) => r.code !== 'None')
    .map((r) => `action ${r.index}: ${r.code}`)
    .join(', ');
}

/** The error for an idempotency record over DynamoDB's item limit. */
export function tooLarge(id: string, size: number, cause?: unknown, key?: string): ItemTooLargeError {
  return new ItemTooLargeError(
    `The idempotency record ${id} with its result would be about ${size} bytes; DynamoDB's item limit is ${MAX_ITEM_BYTES}. Store a smaller result or none.`,
    size,
    MAX_ITEM_BYTES,
    { ...(cause === undefined ? {} : { cause }), ...(key === undefined ? {} : { key }) },
  );
}

/** A refused fenced write as a result (`lease-lost`), or the error rethrown when it is not a failed condition. */
export function leaseLost(err: unknown): FencedWriteResult {
  if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
  const current = recordFromWire(err['Item'] as Record<string, AttributeValue> | undefined);
  return current === undefined ? { kind: 'lease-lost' } : { kind: 'lease-lost', current };
}
