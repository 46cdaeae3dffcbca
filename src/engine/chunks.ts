/**
 * Splitting a list for the AWS batch APIs (SQS `*Batch` calls: 10 entries,
 * DynamoDB `BatchGetItem`: 100 keys, `BatchExecuteStatement`: 25 statements).
 */

/** Items in chunks of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
