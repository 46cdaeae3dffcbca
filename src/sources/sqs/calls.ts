/**
 * What the SQS production helpers share: records grouped by their queue, and
 * SQS's batch size. Pure.
 */
import type { SQSRecord } from 'aws-lambda';

/** `SendMessageBatch` and `ChangeMessageVisibilityBatch` take at most 10 entries. */
export const SQS_BATCH_LIMIT = 10;

/** Items grouped by the queue ARN of their record (one mapping has one queue, but nothing here relies on it). */
export function byQueue<T>(items: readonly T[], recordOf: (item: T) => SQSRecord): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const arn = recordOf(item).eventSourceARN;
    const group = groups.get(arn);
    if (group === undefined) groups.set(arn, [item]);
    else group.push(item);
  }
  return groups;
}
