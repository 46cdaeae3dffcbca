/**
 * The claim-strategy half of the DynamoDB store: claim, complete, release,
 * renew and get. `DynamoDBIdempotencyStore` extends it with the transaction
 * strategy's commit and the stale-claims query; a claim-only handler that
 * constructs this class instead (from either entry) bundles neither: a
 * method cannot be tree-shaken, a class that is never referenced can.
 * I/O only: the conditions live in expressions.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { claimVerdict } from '../../engine/claim.js';
import { EffectivelyOnceError } from '../../engine/errors.js';
import { recordId } from '../../engine/keys.js';
import { checkLease } from '../../engine/lease.js';
import { isOwnWrite, type IdempotencyRecord } from '../../engine/record.js';
import { MAX_ITEM_BYTES } from '../../engine/size.js';
import { CompletedCache } from './cache.js';
import { isAwsError } from './refusals.js';
import {
  claimPutRequest,
  claimRequest,
  completeRequest,
  markFailedRequest,
  releaseDeleteRequest,
  renewRequest,
  type ClaimParams,
} from './expressions.js';
import { resolveStoreOptions, type DynamoDBIdempotencyStoreOptions, type ResolvedStoreOptions } from './options.js';
import { completedSizeEstimate, encodeResult, errorText, isLive, recordFromWire, toRecord } from './records.js';
import { leaseLost, tooLarge } from './refusals.js';
import type { ClaimInput, ClaimResult, CompleteInput, FencedWriteResult, IdempotencyStore, ReleaseInput, RenewInput } from '../types.js';

/**
 * The record that refused a claim (`ALL_OLD`), or the error rethrown when
 * the claim failed for another reason (throttling, network).
 */
function refusedClaim(err: unknown, key: string, id: string): IdempotencyRecord {
  if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
  const existing = recordFromWire(err['Item'] as Record<string, AttributeValue> | undefined);
  if (existing !== undefined) return existing;
  throw new EffectivelyOnceError(`The claim of ${id} failed its condition without returning the record.`, { cause: err, key });
}

/** What a subclass (the transactional store) shares with the claim store: the resolved options and the one cache. */
export interface ClaimStoreParts {
  readonly options: ResolvedStoreOptions;
  readonly cache: CompletedCache | undefined;
}

/**
 * The key of the method that hands a subclass the store's resolved options and cache: a symbol this
 * package does not export from an entry, so they stay out of the public type and no user reaches them,
 * kept on the instance itself rather than in a module-level map.
 */
export const claimStoreParts: unique symbol = Symbol('claimStoreParts');

/**
 * Idempotency records in a DynamoDB table (see `infra/tables.json`), for the
 * claim strategy: the same options, table layout and claim methods as
 * `DynamoDBIdempotencyStore` (which extends it), without `commit` or
 * `staleClaims`, so a claim-only handler built on it bundles neither (about
 * 10 kB minified). Every state change is one conditional request (taking over
 * a free item: a refused `PutItem`, then an `UpdateItem`); a lost
 * condition returns the record that caused it from the same round trip
 * (`ALL_OLD`), so no method reads before it writes.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { DynamoDBClaimStore } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
 *   marshallOptions: { removeUndefinedValues: true },
 * });
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency', cache: { maxEntries: 1000 } });
 * const claim = await store.claim({ consumer: 'payments', key: 'order-42', leaseMs: 30_000 });
 * if (claim.kind === 'claimed') await store.complete({ id: claim.id, token: claim.token });
 * ```
 */
export class DynamoDBClaimStore implements IdempotencyStore {
  readonly #options: ResolvedStoreOptions;
  readonly #cache: CompletedCache | undefined;

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(options: DynamoDBIdempotencyStoreOptions) {
    this.#options = resolveStoreOptions(options);
    const { cache, clock } = this.#options;
    this.#cache = cache === false ? undefined : new CompletedCache(cache.maxEntries, clock);
  }

  /** The resolved options and the one cache, for the transactional store that extends this one. */
  [claimStoreParts](): ClaimStoreParts {
    return { options: this.#options, cache: this.#cache };
  }

  /** `consumer#key`, with the key replaced by its SHA-256 when `hashKeys` is set. */
  recordId(consumer: string, key: string): string {
    return recordId(consumer, key, this.#options.hashKeys);
  }

  /**
   * Claims the key as IN_PROGRESS for `leaseMs`: one conditional `PutItem`
   * when the key has no item (the common case), which returns the item it
   * found otherwise; a found item that is free (lease passed, FAILED, past
   * retention) is then taken with one conditional `UpdateItem` that keeps
   * counting attempts. A cached COMPLETED record answers without any request.
   */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    checkLease('claim', input.leaseMs);
    const id = this.recordId(input.consumer, input.key);
    const cached = this.#cache?.lookup(id);
    if (cached !== undefined) return { kind: 'completed', id, existing: cached, fromCache: true };
    const { client, tableName, retentionMs, clock, trackInflight } = this.#options;
    const { leaseMs, payloadHash, messageId } = input;
    const params: ClaimParams = {
      tableName,
      id,
      token: randomUUID(),
      now: clock.now(),
      leaseMs,
      retentionMs,
      payloadHash,
      messageId,
      trackInflight,
    };
    const put = claimPutRequest(params);
    let existing: IdempotencyRecord;
    try {
      await client.send(new PutCommand(put));
      return { kind: 'claimed', id, token: params.token, record: toRecord(put.Item) };
    } catch (err) {
      existing = refusedClaim(err, input.key, id);
    }
    // Two requests only for a key whose item is free again: a takeover, a retry after mark-failed, a record past retention.
    if (claimVerdict(existing, params.now) !== 'free') return this.#notClaimed(existing, params);
    try {
      const out = await client.send(new UpdateCommand(claimRequest(params)));
      return { kind: 'claimed', id, token: params.token, record: toRecord(out.Attributes ?? {}) };
    } catch (err) {
      return this.#notClaimed(refusedClaim(err, input.key, id), params);
    }
  }

  /** A refused claim, from the record that refused it. */
  #notClaimed(existing: IdempotencyRecord, { id, token, now }: ClaimParams): ClaimResult {
    // The SDK retried a claim whose first attempt landed: the claim is ours.
    if (isOwnWrite(existing, token, 'IN_PROGRESS')) return { kind: 'claimed', id, token, record: existing };
    // DynamoDB judged this record at the same `now`, so 'free' cannot come back; were it to, a retry is the safe answer.
    if (claimVerdict(existing, now) !== 'duplicate') return { kind: 'in-progress', id, existing };
    this.#cache?.remember(existing);
    return { kind: 'completed', id, existing, fromCache: false };
  }

  /**
   * Marks the claim COMPLETED, fenced on its owner token.
   * @throws ItemTooLargeError when the stored result would push the record past 400 KB (the claim stays IN_PROGRESS).
   */
  async complete(input: CompleteInput): Promise<FencedWriteResult> {
    const { client, tableName, retentionMs, clock } = this.#options;
    // Encoded once: the same map is measured and sent.
    const result = input.storeResult === true ? encodeResult(input.result) : undefined;
    if (result !== undefined) {
      const size = completedSizeEstimate(input.id, input.token, result);
      if (size > MAX_ITEM_BYTES) throw tooLarge(input.id, size);
    }
    const request = completeRequest({
      tableName,
      id: input.id,
      token: input.token,
      now: clock.now(),
      retentionMs,
      ...(result === undefined ? {} : { result }),
    });
    try {
      const out = await client.send(new UpdateCommand(request));
      const record = toRecord(out.Attributes ?? {});
      this.#cache?.remember(record);
      return { kind: 'ok', record };
    } catch (err) {
      // Our estimate leaves room for unseen attributes; should DynamoDB still disagree, say so the same way.
      if (isAwsError(err, 'ValidationException') && /item size/i.test(err.message)) {
        throw tooLarge(input.id, MAX_ITEM_BYTES + 1, err);
      }
      const refused = leaseLost(err);
      // The SDK retried a completion whose first attempt landed: it is done, and by us.
      if (refused.kind === 'lease-lost' && refused.current !== undefined && isOwnWrite(refused.current, input.token, 'COMPLETED')) {
        this.#cache?.remember(refused.current);
        return { kind: 'ok', record: refused.current };
      }
      return refused;
    }
  }

  /** Gives the claim up (delete, or FAILED with `release: 'mark-failed'`), fenced on its owner token. */
  async release(input: ReleaseInput): Promise<FencedWriteResult> {
    const { client, tableName, retentionMs, clock, release, errorMessages } = this.#options;
    const params = { tableName, id: input.id, token: input.token, now: clock.now(), retentionMs };
    try {
      if (release === 'delete') {
        await client.send(new DeleteCommand(releaseDeleteRequest(params)));
        return { kind: 'ok' };
      }
      const lastError = input.error === undefined ? 'released without an error' : errorText(input.error, errorMessages);
      const out = await client.send(new UpdateCommand(markFailedRequest(params, lastError)));
      return { kind: 'ok', record: toRecord(out.Attributes ?? {}) };
    } catch (err) {
      return leaseLost(err);
    }
  }

  /** Extends the claim's lease to now + `leaseMs` (the heartbeat), fenced on its owner token. */
  async renew(input: RenewInput): Promise<FencedWriteResult> {
    checkLease('renew', input.leaseMs);
    const { client, tableName, retentionMs, clock } = this.#options;
    const request = renewRequest({ tableName, id: input.id, token: input.token, now: clock.now(), leaseMs: input.leaseMs, retentionMs });
    try {
      return { kind: 'ok', record: toRecord((await client.send(new UpdateCommand(request))).Attributes ?? {}) };
    } catch (err) {
      return leaseLost(err);
    }
  }

  /** Strongly consistent read; a record past its retention counts as absent (TTL deletes lazily). */
  async get(id: string): Promise<IdempotencyRecord | undefined> {
    const { client, tableName, clock } = this.#options;
    const out = await client.send(new GetCommand({ TableName: tableName, Key: { id }, ConsistentRead: true }));
    if (out.Item === undefined) return undefined;
    const record = toRecord(out.Item);
    if (!isLive(record, clock.now())) return undefined;
    this.#cache?.remember(record);
    return record;
  }
}
