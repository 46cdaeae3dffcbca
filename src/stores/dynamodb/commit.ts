/**
 * The DynamoDB store's commit path: what is decided before a commit is sent (cache, the COMPLETED item, its size, the
 * limits), sending one record's `TransactWriteItems`, and reading a refused one (a duplicate, a live claim, a business
 * conflict, or a cancellation worth retrying).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { claimVerdict, probeVerdict } from '../../engine/claim.js';
import { toEpochSeconds } from '../../engine/clock.js';
import {
  BusinessConflictError,
  IdempotencyInProgressError,
  TransactionLimitError,
  TransactionRetryableError,
} from '../../engine/errors.js';
import type { IdempotencyRecord } from '../../engine/record.js';
import { itemSize, MAX_ITEM_BYTES } from '../../engine/size.js';
import type { CompletedCache } from './cache.js';
import { cancellationReasons, classifyCancellation, type RawCancellationReason } from './cancellation.js';
import { isAwsError } from './refusals.js';
import { commitPut, FRESH_KEY_CONDITION, freshKeyPut } from './expressions.js';
import type { PreparedCommit } from './group-commit.js';
import type { ResolvedStoreOptions } from './options.js';
import { encodeResult, recordFromWire, toRecord } from './records.js';
import { outboxKeyMissing } from './outbox-keys.js';
import { describeReasons, tooLarge } from './refusals.js';
import { checkTransactionLimits } from './commit-limits.js';
import type { CommitInput, CommitResult } from '../../engine/store.js';

/** What the commit path needs from the store. */
export interface CommitContext {
  readonly options: ResolvedStoreOptions;
  readonly cache: CompletedCache | undefined;
  /** The store's `recordId`. */
  recordId(consumer: string, key: string): string;
  /** The store's strongly consistent `get`. */
  get(id: string): Promise<IdempotencyRecord | undefined>;
}

/**
 * Cache, item, limits, then what the probe `found`: everything decided
 * before a commit is sent. Throws what commit throws before sending.
 */
export function prepare(
  ctx: CommitContext,
  input: CommitInput,
  index: number,
  found?: ReadonlyMap<string, IdempotencyRecord>,
): { kind: 'answered'; result: CommitResult } | (PreparedCommit & { kind: 'ready' }) {
  const id = ctx.recordId(input.consumer, input.key);
  const cached = ctx.cache?.lookup(id);
  if (cached !== undefined) return { kind: 'answered', result: { kind: 'duplicate', id, existing: cached, fromCache: true } };
  const { tableName, clock } = ctx.options;
  const now = clock.now();
  const item = committedItem(ctx, id, input, now);
  const size = itemSize(item);
  if (size > MAX_ITEM_BYTES) throw tooLarge(id, size, undefined, input.key);
  const own = { tableName, id, item };
  const footprint = checkTransactionLimits(own, input.actions, input.key);
  // Judged after the checks above, which a refused commit would have thrown too.
  const seen = found?.get(id);
  const verdict = probeVerdict(seen, now, input.payloadHash);
  if (verdict === 'duplicate' && seen !== undefined) {
    // As `blocked` answers the same record when the commit's Put is refused.
    ctx.cache?.remember(seen);
    return { kind: 'answered', result: { kind: 'duplicate', id, existing: seen, fromCache: false } };
  }
  return {
    kind: 'ready',
    index,
    input,
    id,
    now,
    // A record the probe found stored is sent under the full rule at once: the fresh-key condition would refuse it.
    put: { Put: seen === undefined ? freshKeyPut(tableName, item) : commitPut(tableName, item, now) },
    footprint,
    ...(verdict === 'blocked' ? { alone: true } : {}),
  };
}

/** The same commit with its Put under the full "key is free" rule. */
function underFullRule(ctx: CommitContext, c: PreparedCommit): PreparedCommit {
  return { ...c, put: { Put: commitPut(ctx.options.tableName, (c.put.Put?.Item ?? {}) as Record<string, unknown>, c.now) } };
}

/** One record's commit sent alone, its refusal read as `commit` reads it. */
export async function sendOne(ctx: CommitContext, c: PreparedCommit): Promise<CommitResult> {
  try {
    await ctx.options.client.send(new TransactWriteCommand({ TransactItems: [c.put, ...c.input.actions] }));
  } catch (err) {
    // A tx.outbox() item that misses a key of its table: name the option, not DynamoDB's bare ValidationException.
    const misfit = await outboxKeyMissing(ctx.options.client, err, [c.put, ...c.input.actions]);
    if (misfit !== undefined) throw misfit;
    return commitRefused(ctx, err, cancellationReasons(err), c);
  }
  return committed(ctx, c);
}

/** The record of a commit that went through, remembered in the cache. */
export function committed(ctx: CommitContext, c: PreparedCommit): CommitResult {
  const record = toRecord((c.put.Put?.Item ?? {}) as Record<string, unknown>);
  ctx.cache?.remember(record);
  return { kind: 'committed', id: c.id, record };
}

function committedItem(ctx: CommitContext, id: string, input: CommitInput, now: number): Record<string, unknown> {
  return {
    id,
    status: 'COMPLETED',
    expiresAt: toEpochSeconds(now + ctx.options.retentionMs),
    attempts: 1,
    completedAt: now,
    ...(input.payloadHash === undefined ? {} : { payloadHash: input.payloadHash }),
    ...(input.messageId === undefined ? {} : { messageId: input.messageId }),
    ...(input.storeResult === true ? { result: encodeResult(input.result) } : {}),
  };
}

/** Maps a refused transaction to an outcome, or throws what the caller must handle. */
export async function commitRefused(
  ctx: CommitContext,
  err: unknown,
  reasons: readonly RawCancellationReason[] | undefined,
  c: PreparedCommit,
): Promise<CommitResult> {
  const { id } = c;
  const { key } = c.input;
  if (reasons === undefined) {
    if (isAwsError(err, 'ValidationException') && /multiple operations on one item/i.test(err.message)) {
      throw new TransactionLimitError(`Two actions touch the same item: ${err.message}`, { cause: err, key });
    }
    throw err;
  }
  const verdict = classifyCancellation(reasons);
  switch (verdict.kind) {
    case 'idempotency':
      return blocked(ctx, err, c, verdict.item);
    case 'business': {
      const error = new BusinessConflictError(
        `A condition of the handler's transaction failed (${describeReasons(verdict.reasons)}); nothing was written.`,
        verdict.reasons,
        { cause: err, key },
      );
      return { kind: 'business-conflict', id, error };
    }
    case 'retryable':
      throw new TransactionRetryableError(`The transaction for ${id} was cancelled by contention or throttling.`, { cause: err, key });
    default:
      throw err;
  }
}

// The idempotency condition failed: COMPLETED is a duplicate, a live claim is in progress.
async function blocked(
  ctx: CommitContext,
  err: unknown,
  c: PreparedCommit,
  wire: Record<string, AttributeValue> | undefined,
): Promise<CommitResult> {
  const { id, now } = c;
  const { key } = c.input;
  // ALL_OLD should always carry the item; read it only if an emulator leaves it out.
  const existing = recordFromWire(wire) ?? (await ctx.get(id));
  // Refused by the fresh-key condition alone, free under the full rule (FAILED, past its retention or lease): send it under that rule.
  if (c.put.Put?.ConditionExpression === FRESH_KEY_CONDITION && claimVerdict(existing, now) === 'free') {
    return sendOne(ctx, underFullRule(ctx, c));
  }
  if (existing === undefined) {
    throw new TransactionRetryableError(`The record blocking ${id} disappeared; try again.`, { cause: err, key });
  }
  if (claimVerdict(existing, now) !== 'duplicate') {
    throw new IdempotencyInProgressError(`${id} is claimed by another invocation; try again later.`, { cause: err, key, existing });
  }
  ctx.cache?.remember(existing);
  return { kind: 'duplicate', id, existing, fromCache: false };
}
