/**
 * Finding crashed claims through the sparse in-flight index. Only IN_PROGRESS
 * records carry `inflight`, so the index holds live and crashed claims only,
 * spread over `INFLIGHT_SHARDS` partitions to avoid a hot GSI partition.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ATTR, INFLIGHT_SHARDS } from './layout.js';
import type { StaleClaim } from '../../engine/store.js';

/** Name of the sparse index of IN_PROGRESS claims (same as in `infra/tables.json`). */
export const INFLIGHT_INDEX_NAME = 'inflight-by-lease';

/** Default cap on how many stale claims one call returns. */
export const DEFAULT_STALE_LIMIT = 100;

function toStaleClaim(item: Record<string, unknown>): StaleClaim | undefined {
  const { id, leaseUntil, messageId, attempts, claimedAt } = item;
  if (typeof id !== 'string' || typeof leaseUntil !== 'number') return undefined;
  return {
    id,
    leaseUntil,
    ...(typeof messageId === 'string' ? { messageId } : {}),
    ...(typeof attempts === 'number' ? { attempts } : {}),
    ...(typeof claimedAt === 'number' ? { claimedAt } : {}),
  };
}

// One shard, oldest lease first, paging until `limit` items or the end.
async function queryShard(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
  before: number,
  limit: number,
): Promise<StaleClaim[]> {
  const found: StaleClaim[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: INFLIGHT_INDEX_NAME,
        KeyConditionExpression: '#inflight = :shard AND #leaseUntil < :before',
        ExpressionAttributeNames: { '#inflight': ATTR.inflight, '#leaseUntil': ATTR.leaseUntil },
        ExpressionAttributeValues: { ':shard': shard, ':before': before },
        Limit: limit - found.length,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of out.Items ?? []) {
      const claim = toStaleClaim(item);
      if (claim !== undefined) found.push(claim);
    }
    start = out.LastEvaluatedKey;
  } while (start !== undefined && found.length < limit);
  return found;
}

/**
 * IN_PROGRESS claims whose lease ended before `before` (epoch ms), oldest
 * first, at most `limit`. Read-only: deciding what to do with them is the
 * caller's business (a crashed claim is retaken by the next delivery anyway).
 * The index is eventually consistent, so a claim completed a moment ago may
 * still appear.
 */
export async function queryStaleClaims(
  client: DynamoDBDocumentClient,
  tableName: string,
  before: number,
  limit: number = DEFAULT_STALE_LIMIT,
): Promise<StaleClaim[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError(`staleClaims: "limit" must be a positive integer, got ${limit}.`);
  const shards = Array.from({ length: INFLIGHT_SHARDS }, (_, i) => `p${i}`);
  const perShard = await Promise.all(shards.map((s) => queryShard(client, tableName, s, before, limit)));
  return perShard
    .flat()
    .sort((a, b) => a.leaseUntil - b.leaseUntil)
    .slice(0, limit);
}
