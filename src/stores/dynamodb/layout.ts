/**
 * The DynamoDB table layout of the idempotency records: attribute names and
 * the sparse in-flight index's shards. Store-specific, so it lives here and
 * not in `src/engine/` (another store lays its records out its own way).
 */

/** Attribute names used in the table. Kept in one place so conditions and items agree. */
export const ATTR = {
  id: 'id',
  status: 'status',
  owner: 'owner',
  leaseUntil: 'leaseUntil',
  expiresAt: 'expiresAt',
  payloadHash: 'payloadHash',
  attempts: 'attempts',
  messageId: 'messageId',
  claimedAt: 'claimedAt',
  completedAt: 'completedAt',
  result: 'result',
  lastError: 'lastError',
  /** Sparse attribute, present only while IN_PROGRESS: the sweeper's index partition. */
  inflight: 'inflight',
} as const;

/** How many partitions the sparse in-flight index is spread over (so no hot GSI partition). */
export const INFLIGHT_SHARDS = 8;

/** Which partition of the sparse in-flight index a record id lands in. */
export function inflightShard(id: string, shards: number): string {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return `p${h % shards}`;
}

/** Attribute names of an outbox item (besides the table's own key attribute). */
export const OUTBOX_ATTRIBUTES = {
  id: 'outboxId',
  status: 'outboxStatus',
  createdAt: 'createdAt',
  publishedAt: 'publishedAt',
  expiresAt: 'expiresAt',
  source: 'source',
  detailType: 'detailType',
  detail: 'detail',
  eventBusName: 'eventBusName',
} as const;
