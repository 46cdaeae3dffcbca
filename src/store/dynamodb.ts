/**
 * The DynamoDB implementation of `TransactionalIdempotencyStore`. I/O only: the decisions
 * (conditions, limits, what a cancellation means) live in the helpers next
 * to it, so this file reads as "build request, send once, map the answer".
 * The transaction strategy's commit path (prepare, send, read a refusal) is in
 * dynamodb-commit.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { claimVerdict } from '../core/claim.js';
import { EffectivelyOnceError } from '../core/errors.js';
import { recordId } from '../core/keys.js';
import { isOwnWrite, type IdempotencyRecord } from '../core/record.js';
import { MAX_ITEM_BYTES } from '../core/size.js';
import { CompletedCache } from './cache.js';
import { isAwsError } from './cancellation.js';
import { commitRefused, committed, prepare, readMany, sendOne, type CommitContext } from './dynamodb-commit.js';
import { commitInRounds, type PreparedCommit } from './group-commit.js';
import { claimRequest, completeRequest, markFailedRequest, releaseDeleteRequest, renewRequest } from './expressions.js';
import { resolveStoreOptions, type DynamoDBIdempotencyStoreOptions, type ResolvedStoreOptions } from './options.js';
import { completedSizeEstimate, encodeResult, errorText, isLive, recordFromWire, toRecord } from './records.js';
import { checkLease } from '../core/lease.js';
import { leaseLost, tooLarge } from './refusals.js';
import { queryStaleClaims } from './stale.js';
import type {
  ClaimInput,
  ClaimResult,
  CommitInput,
  CommitResult,
  CompleteInput,
  FencedWriteResult,
  GroupCommitAnswer,
  ReleaseInput,
  RenewInput,
  StaleClaim,
  TransactionalIdempotencyStore,
} from './types.js';

/**
 * Idempotency records in a DynamoDB table (see `infra/tables.json`). Every
 * state change is one conditional request; a lost condition returns the
 * record that caused it from the same round trip (`ALL_OLD`), so no method
 * reads before it writes.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { DynamoDBIdempotencyStore } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
 *   marshallOptions: { removeUndefinedValues: true },
 * });
 * const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency', cache: { maxEntries: 1000 } });
 * const claim = await store.claim({ consumer: 'payments', key: 'order-42', leaseMs: 30_000 });
 * if (claim.kind === 'claimed') await store.complete({ id: claim.id, token: claim.token });
 * ```
 */
export class DynamoDBIdempotencyStore implements TransactionalIdempotencyStore {
  readonly #options: ResolvedStoreOptions;
  readonly #cache: CompletedCache | undefined;
  readonly #commit: CommitContext;

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(options: DynamoDBIdempotencyStoreOptions) {
    this.#options = resolveStoreOptions(options);
    const { cache, clock } = this.#options;
    this.#cache = cache === false ? undefined : new CompletedCache(cache.maxEntries, clock);
    this.#commit = {
      options: this.#options,
      cache: this.#cache,
      recordId: (consumer, key) => this.recordId(consumer, key),
      get: (id) => this.get(id),
    };
  }

  /** `consumer#key`, with the key replaced by its SHA-256 when `hashKeys` is set. */
  recordId(consumer: string, key: string): string {
    return recordId(consumer, key, this.#options.hashKeys);
  }

  /**
   * Claims the key as IN_PROGRESS for `leaseMs`, in one conditional request.
   * A cached COMPLETED record answers without any request.
   */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    checkLease('claim', input.leaseMs);
    const id = this.recordId(input.consumer, input.key);
    const cached = this.#cache?.lookup(id);
    if (cached !== undefined) return { kind: 'completed', id, existing: cached, fromCache: true };
    const { client, tableName, retentionMs, clock, trackInflight } = this.#options;
    const token = randomUUID();
    const { leaseMs, payloadHash, messageId } = input;
    const now = clock.now();
    const request = claimRequest({ tableName, id, token, now, leaseMs, retentionMs, payloadHash, messageId, trackInflight });
    try {
      const out = await client.send(new UpdateCommand(request));
      return { kind: 'claimed', id, token, record: toRecord(out.Attributes ?? {}) };
    } catch (err) {
      if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
      const existing = recordFromWire(err['Item'] as Record<string, AttributeValue> | undefined);
      if (existing === undefined) {
        throw new EffectivelyOnceError(`The claim of ${id} failed its condition without returning the record.`, {
          cause: err,
          key: input.key,
        });
      }
      // The SDK retried a claim whose first attempt landed: the claim is ours.
      if (isOwnWrite(existing, token, 'IN_PROGRESS')) return { kind: 'claimed', id, token, record: existing };
      // DynamoDB judged this record at the same `now`, so 'free' cannot come back; were it to, a retry is the safe answer.
      if (claimVerdict(existing, now) !== 'duplicate') return { kind: 'in-progress', id, existing };
      this.#cache?.remember(existing);
      return { kind: 'completed', id, existing, fromCache: false };
    }
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

  /**
   * Transaction strategy: the COMPLETED record and the handler's `actions` in
   * one `TransactWriteItems`; nothing is half applied.
   * @throws TransactionLimitError before sending when the transaction breaks a DynamoDB limit.
   * @throws ItemTooLargeError when the record with its result would exceed 400 KB.
   * @throws IdempotencyInProgressError when a claim (claim strategy) holds the key with a live lease.
   * @throws TransactionRetryableError on transaction conflict or throttling; nothing was written.
   */
  async commit(input: CommitInput): Promise<CommitResult> {
    const prepared = prepare(this.#commit, input, 0);
    return prepared.kind === 'answered' ? prepared.result : sendOne(this.#commit, prepared);
  }

  /**
   * Group commit: the records' commits packed into as few `TransactWriteItems`
   * as the limits allow (no item twice in one, at most 100 actions and 4 MB),
   * sent side by side; each record stays atomic on its own. A cancelled group
   * is read per record: a duplicate or a failed condition decides that
   * record alone; the records cancelled only with it are sent again.
   * Each answer is what {@link commit} would return or throw for that record.
   * `found` (from {@link getMany}): a record found COMPLETED is answered as
   * the duplicate its refused commit would be, without sending it; one held
   * by a live claim or under another payload is sent alone.
   */
  async commitGroup(inputs: readonly CommitInput[], found?: ReadonlyMap<string, IdempotencyRecord>): Promise<GroupCommitAnswer[]> {
    const answers = new Map<number, GroupCommitAnswer>();
    const ready: PreparedCommit[] = [];
    inputs.forEach((input, index) => {
      try {
        const prepared = prepare(this.#commit, input, index, found);
        if (prepared.kind === 'answered') answers.set(index, { kind: 'result', result: prepared.result });
        else ready.push(prepared);
      } catch (error) {
        answers.set(index, { kind: 'error', error });
      }
    });
    const { client } = this.#options;
    const sent = await commitInRounds(ready, {
      send: async (items) => void (await client.send(new TransactWriteCommand({ TransactItems: items }))),
      single: (c) => sendOne(this.#commit, c),
      refused: (err, reasons, c) => commitRefused(this.#commit, err, reasons, c),
      committed: (c) => committed(this.#commit, c),
    });
    return inputs.map((_, i) => answers.get(i) ?? sent.get(i) ?? { kind: 'error', error: new Error('No answer for this commit.') });
  }

  /**
   * Group commit's duplicate probe: the records under `ids`, in strongly
   * consistent `BatchGetItem`s (100 keys each). Keys DynamoDB leaves
   * unprocessed are absent from the answer.
   */
  async getMany(ids: readonly string[]): Promise<ReadonlyMap<string, IdempotencyRecord>> {
    return readMany(this.#commit, ids);
  }

  /** IN_PROGRESS claims whose lease ended before `leaseEndedBefore`, oldest first. Read-only. */
  async staleClaims(options: { readonly leaseEndedBefore: number; readonly limit?: number }): Promise<StaleClaim[]> {
    const { client, tableName } = this.#options;
    return queryStaleClaims(client, tableName, options.leaseEndedBefore, options.limit);
  }
}
