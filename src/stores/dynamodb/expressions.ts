/** The store's requests as plain DocumentClient inputs, conditions readable in one place: every write is conditional. */
import type { DeleteCommandInput, PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../../engine/clock.js';
import { Expression } from './expression-builder.js';
import type { IdempotencyStatus } from '../../engine/record.js';
import { ATTR, INFLIGHT_SHARDS, inflightShard } from './layout.js';
import type { TransactItem } from '../../engine/store.js';

const IN_PROGRESS: IdempotencyStatus = 'IN_PROGRESS';
const COMPLETED: IdempotencyStatus = 'COMPLETED';
const FAILED: IdempotencyStatus = 'FAILED';

/**
 * "Nobody holds this key": `claimVerdict(existing, now) === 'free'` (engine/claim.ts) as a condition, checked against
 * it on DynamoDB Local by test/property/claim-dynamodb.test.ts; shared by claim and commit. `expiresAt` is in seconds:
 * `expiresAt <= floor(now/1000)` is exactly `expiresAt * 1000 <= now`.
 */
function claimable(e: Expression, now: number): string {
  return (
    `attribute_not_exists(${e.name(ATTR.id)}) OR ${e.name(ATTR.expiresAt)} <= ${e.value('nowSec', Math.floor(now / 1000))}` +
    ` OR ${e.assign(ATTR.status, 'failed', FAILED)}` +
    ` OR (${e.assign(ATTR.status, 'inProgress', IN_PROGRESS)} AND ${e.name(ATTR.leaseUntil)} <= ${e.value('now', now)})`
  );
}

/** "This invocation still owns the claim": the fencing condition of every write after the claim. */
function owned(e: Expression, token: string): string {
  return `${e.assign(ATTR.status, 'inProgress', IN_PROGRESS)} AND ${e.assign(ATTR.owner, 'token', token)}`;
}

/** A conditional UpdateItem returning the new item, or the item found when its condition fails (no second read). */
function updateRequest(
  p: { readonly tableName: string; readonly id: string },
  e: Expression,
  condition: string,
  updateExpression: string,
): UpdateCommandInput {
  return {
    TableName: p.tableName,
    Key: { [ATTR.id]: p.id },
    ConditionExpression: condition,
    UpdateExpression: updateExpression,
    ...e.attributes(),
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/** Input of {@link claimRequest}. */
export interface ClaimParams {
  readonly tableName: string;
  readonly id: string;
  readonly token: string;
  readonly now: number;
  readonly leaseMs: number;
  readonly retentionMs: number;
  readonly payloadHash?: string | undefined;
  readonly messageId?: string | undefined;
  /** Put the claim in the sparse in-flight index (see `trackInflight`). */
  readonly trackInflight?: boolean | undefined;
}

/**
 * The takeover claim of an item that is free again (lease passed, FAILED, past retention), after `claimPutRequest` was
 * refused: a conditional `UpdateItem`, so `attempts` keeps counting (one request cannot both test and reset it) and an
 * older record's result, lastError and completedAt are removed. The TTL is the later of retention and lease end, so
 * TTL never deletes a live claim.
 */
export function claimRequest(p: ClaimParams): UpdateCommandInput {
  const e = new Expression();
  const condition = claimable(e, p.now);
  const set = [
    e.assign(ATTR.status, 'inProgress', IN_PROGRESS),
    e.assign(ATTR.owner, 'token', p.token),
    e.assign(ATTR.leaseUntil, 'leaseUntil', p.now + p.leaseMs),
    e.assign(ATTR.expiresAt, 'expiresAt', toEpochSeconds(p.now + Math.max(p.retentionMs, p.leaseMs))),
    e.assign(ATTR.claimedAt, 'now', p.now),
    `${e.name(ATTR.attempts)} = if_not_exists(${e.name(ATTR.attempts)}, ${e.value('zero', 0)}) + ${e.value('one', 1)}`,
  ];
  const remove = [e.name(ATTR.result), e.name(ATTR.lastError), e.name(ATTR.completedAt)];
  if (p.trackInflight === true) set.push(e.assign(ATTR.inflight, 'shard', inflightShard(p.id, INFLIGHT_SHARDS)));
  for (const [attr, value] of [
    [ATTR.payloadHash, p.payloadHash],
    [ATTR.messageId, p.messageId],
  ] as const) {
    if (value === undefined) remove.push(e.name(attr));
    else set.push(e.assign(attr, attr, value));
  }
  return updateRequest(p, e, condition, Expression.update(set, remove));
}

/**
 * The claim of a key that has no item: one `PutItem`, conditioned only on the item being absent (the common case;
 * DynamoDB Local spends 20–29 % less CPU on it than on {@link claimRequest}'s update, bench/probe-claims.ts). An item
 * refuses it and comes back (`ALL_OLD`), to be decided in the same round trip, or taken with {@link claimRequest} when
 * free. The item is exactly what `claimRequest` would leave on a key without one.
 */
export function claimPutRequest(p: ClaimParams): PutCommandInput & { Item: Record<string, unknown> } {
  const item: Record<string, unknown> = {
    [ATTR.id]: p.id,
    [ATTR.status]: IN_PROGRESS,
    [ATTR.owner]: p.token,
    [ATTR.leaseUntil]: p.now + p.leaseMs,
    [ATTR.expiresAt]: toEpochSeconds(p.now + Math.max(p.retentionMs, p.leaseMs)),
    [ATTR.claimedAt]: p.now,
    [ATTR.attempts]: 1,
  };
  if (p.trackInflight === true) item[ATTR.inflight] = inflightShard(p.id, INFLIGHT_SHARDS);
  if (p.payloadHash !== undefined) item[ATTR.payloadHash] = p.payloadHash;
  if (p.messageId !== undefined) item[ATTR.messageId] = p.messageId;
  return freshKeyPut(p.tableName, item);
}

/** The fresh-key condition: the key has no item at all (narrower than {@link claimable}). */
export const FRESH_KEY_CONDITION = `attribute_not_exists(#${ATTR.id})`;

/**
 * A Put of `item` under the fresh-key condition, returning the item it found
 * when refused: the claim of a fresh key, and the first idempotency Put of a
 * commit (whose refusal by a free item is then sent under the full rule).
 * Why not the full rule at once: most keys are fresh, and DynamoDB spends
 * less on this condition (bench/probe-claims.ts, bench/probe-transactions.ts).
 */
export function freshKeyPut<T extends Readonly<Record<string, unknown>>>(tableName: string, item: T) {
  return {
    TableName: tableName,
    Item: { ...item },
    ConditionExpression: FRESH_KEY_CONDITION,
    ExpressionAttributeNames: { [`#${ATTR.id}`]: ATTR.id },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
}

/** Input of {@link completeRequest}. */
export interface CompleteParams {
  readonly tableName: string;
  readonly id: string;
  readonly token: string;
  readonly now: number;
  readonly retentionMs: number;
  /** The result as `encodeResult` stored it; absent when the result is not stored. */
  readonly result?: Readonly<Record<string, unknown>>;
}

/**
 * Completion, fenced on the owner token. `inflight` and `leaseUntil` are
 * removed together so the record leaves the sparse in-flight index.
 */
export function completeRequest(p: CompleteParams): UpdateCommandInput {
  const e = new Expression();
  const condition = owned(e, p.token);
  const set = [
    e.assign(ATTR.status, 'completed', COMPLETED),
    e.assign(ATTR.completedAt, 'now', p.now),
    e.assign(ATTR.expiresAt, 'expiresAt', toEpochSeconds(p.now + p.retentionMs)),
  ];
  if (p.result !== undefined) set.push(e.assign(ATTR.result, 'result', p.result));
  return updateRequest(p, e, condition, Expression.update(set, [e.name(ATTR.inflight), e.name(ATTR.leaseUntil)]));
}

/** Input of {@link renewRequest}: a claim's own fields, without what only a new claim sets. */
export type RenewParams = Pick<ClaimParams, 'tableName' | 'id' | 'token' | 'now' | 'leaseMs' | 'retentionMs'>;

/**
 * The heartbeat: extends the lease, fenced on the owner token and on
 * IN_PROGRESS (a renewal can never revive a completed or released claim, nor
 * touch another owner's). The TTL moves with it, as in the claim, so TTL can
 * never delete a live claim.
 */
export function renewRequest(p: RenewParams): UpdateCommandInput {
  const e = new Expression();
  const set = [
    e.assign(ATTR.leaseUntil, 'leaseUntil', p.now + p.leaseMs),
    e.assign(ATTR.expiresAt, 'expiresAt', toEpochSeconds(p.now + Math.max(p.retentionMs, p.leaseMs))),
  ];
  return updateRequest(p, e, owned(e, p.token), Expression.update(set, []));
}

/** Input of the release requests. */
export interface ReleaseParams {
  readonly tableName: string;
  readonly id: string;
  readonly token: string;
  readonly now: number;
  readonly retentionMs: number;
}

/**
 * `release: 'delete'`: removes the claim, fenced on the owner token and on
 * IN_PROGRESS (so a late release can never delete a COMPLETED record).
 */
export function releaseDeleteRequest(p: ReleaseParams): DeleteCommandInput {
  const e = new Expression();
  return {
    TableName: p.tableName,
    Key: { [ATTR.id]: p.id },
    ConditionExpression: owned(e, p.token),
    ...e.attributes(),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * `release: 'mark-failed'`: keeps the record as FAILED (attempts untouched,
 * last error kept, retention restarted so the trace lives as long as a
 * COMPLETED record would) and drops what made it a live claim. FAILED stays
 * claimable (see the claim condition).
 */
export function markFailedRequest(p: ReleaseParams, lastError: string): UpdateCommandInput {
  const e = new Expression();
  const condition = owned(e, p.token);
  const set = [
    e.assign(ATTR.status, 'failed', FAILED),
    e.assign(ATTR.lastError, 'lastError', lastError),
    e.assign(ATTR.expiresAt, 'expiresAt', toEpochSeconds(p.now + p.retentionMs)),
  ];
  const remove = [e.name(ATTR.inflight), e.name(ATTR.owner), e.name(ATTR.leaseUntil)];
  return updateRequest(p, e, condition, Expression.update(set, remove));
}

/**
 * The idempotency action of a commit: a Put of a COMPLETED record under a claim's "key is free" condition. A live claim
 * blocks it, reported as in progress (never a duplicate: the claim's effect may still fail); one whose lease has passed
 * is taken over (its owner's fenced writes then fail), the record starting again at `attempts: 1`.
 */
export function commitPut(tableName: string, item: Readonly<Record<string, unknown>>, now: number): NonNullable<TransactItem['Put']> {
  const e = new Expression();
  return {
    TableName: tableName,
    Item: { ...item },
    ConditionExpression: claimable(e, now),
    ...e.attributes(),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
