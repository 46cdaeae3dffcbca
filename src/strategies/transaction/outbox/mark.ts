/**
 * What the outbox relay does after publishing: marks each published item
 * PUBLISHED with a TTL (or deletes it), a few at a time, and says which
 * could not be marked (their records are retried and published again).
 */
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock, toEpochSeconds } from '../../../engine/clock.js';
import { isAwsError } from '../../../stores/dynamodb/refusals.js';
import { OUTBOX_ATTRIBUTES } from '../../../stores/dynamodb/layout.js';
import type { OutboxStatus, PendingOutboxEntry } from './item.js';
import type { EntryOutcome } from './publish.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../../engine/clock.js';

/** What marking reads of the relay's options (`OutboxRelayOptions`, relay.ts, which imports this file). */
export interface MarkOptions {
  readonly client: DynamoDBDocumentClient;
  readonly afterPublish?: 'mark' | 'delete';
  readonly retentionMs?: number;
  readonly clock?: Clock;
}

const DAY_MS = 86_400_000;
const MARK_CONCURRENCY = 10;

/** A stream record that holds a new outbox item, with where it lives. */
export interface Candidate {
  readonly index: number;
  readonly entry: PendingOutboxEntry;
  readonly table: string;
  readonly key: Record<string, unknown>;
  /** The stream record's, reported for retry. */
  readonly sequenceNumber: string;
}

/** Marks a published item (unless it is gone already) or deletes it. */
async function settleItem(options: MarkOptions, candidate: Candidate): Promise<void> {
  const { client } = options;
  if (options.afterPublish === 'delete') {
    await client.send(new DeleteCommand({ TableName: candidate.table, Key: candidate.key }));
    return;
  }
  const now = (options.clock ?? systemClock).now();
  const a = OUTBOX_ATTRIBUTES;
  try {
    await client.send(
      new UpdateCommand({
        TableName: candidate.table,
        Key: candidate.key,
        UpdateExpression: 'SET #s = :published, #p = :now, #e = :expires',
        // Never recreate an item TTL or a delete already removed.
        ConditionExpression: 'attribute_exists(#id)',
        ExpressionAttributeNames: { '#s': a.status, '#p': a.publishedAt, '#e': a.expiresAt, '#id': a.id },
        ExpressionAttributeValues: {
          ':published': 'PUBLISHED' satisfies OutboxStatus,
          ':now': now,
          ':expires': toEpochSeconds(now + (options.retentionMs ?? DAY_MS)),
        },
      }),
    );
  } catch (error) {
    if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error;
  }
}

/**
 * Marks (or deletes) each published item, a few at a time: a batch of 100
 * items must not open 100 connections at once. `notMarked` hears of each
 * failure: its record is retried and the item published again (same
 * outboxId). Resolves how many failed.
 */
export async function settleAll(
  options: MarkOptions,
  live: readonly Candidate[],
  outcomes: readonly EntryOutcome[],
  notMarked: (candidate: Candidate, error: unknown) => void,
): Promise<number> {
  let failures = 0;
  for (let start = 0; start < live.length; start += MARK_CONCURRENCY) {
    await Promise.all(
      live.slice(start, start + MARK_CONCURRENCY).map(async (candidate, j) => {
        if (outcomes[start + j]?.published !== true) return;
        await settleItem(options, candidate).catch((error: unknown) => {
          failures += 1;
          notMarked(candidate, error);
        });
      }),
    );
  }
  return failures;
}
