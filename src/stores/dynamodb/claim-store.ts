/**
 * The claim-strategy half of the DynamoDB store (a method cannot be tree-shaken, a class that is never referenced can:
 * see `DynamoDBClaimStore`). I/O only: the conditions live in expressions.ts (and, as PartiQL, in statements.ts).
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
import {
  claimPutRequest,
  claimRequest,
  completeRequest,
  markFailedRequest,
  releaseDeleteRequest,
  renewRequest,
  type ClaimParams,
  type CompleteParams,
} from './expressions.js';
import { resolveStoreOptions, type DynamoDBClaimStoreOptions, type ResolvedStoreOptions } from './options.js';
import { completedSizeEstimate, encodeResult, errorText, isLive, recordFromWire, toRecord } from './records.js';
import { isAwsError, leaseLost, tooLarge } from './refusals.js';
import { claimInsertStatement, completeStatement, readRecords, sendStatements, type Statement } from './statements.js';
import { reportingMissingTable } from './table-missing.js';
import { isAccessDenied, StoreWarnings } from './warnings.js';
import type {
  ClaimInput,
  ClaimResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  ReleaseInput,
  RenewInput,
  StoreAnswer,
} from '../../engine/store.js';
import { answerOf } from '../../engine/store.js';

/** The record that refused a claim (`ALL_OLD`), or the error rethrown when the claim failed for another reason (throttling, network). */
function refusedClaim(err: unknown, key: string, id: string): IdempotencyRecord {
  if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
  const existing = recordFromWire(err['Item'] as Record<string, AttributeValue> | undefined);
  if (existing !== undefined) return existing;
  throw new EffectivelyOnceError(`The claim of ${id} failed its condition without returning the record.`, { cause: err, key });
}

/** An input sent in a batch: its place among the inputs, and its request's parameters (a claim's: its token). */
interface Pending<I = ClaimInput, P = ClaimParams> {
  readonly index: number;
  readonly input: I;
  readonly params: P;
}

/** An answer already known. */
const answer = <T>(result: T): Promise<StoreAnswer<T>> => Promise.resolve({ kind: 'result', result });

/**
 * A batched call: each input planned (known `answer`, or its item `id` and request `params`; a throw is its error), the
 * planned sent by `sendBatch`, but alone (`single`) after it when `batched` is off or its item is already in the batch
 * (a batch naming one item twice is refused as a whole).
 */
async function inBatches<I, P, R>(
  inputs: readonly I[],
  plan: (input: I) => { readonly answer: R } | { readonly id: string; readonly params: P },
  sendBatch: (batched: readonly Pending<I, P>[]) => Promise<Map<number, Promise<StoreAnswer<R>>>>,
  single: (input: I) => Promise<R>,
  batched: boolean,
): Promise<StoreAnswer<R>[]> {
  const answers: Promise<StoreAnswer<R>>[] = [];
  const inBatch: Pending<I, P>[] = [];
  const later: Omit<Pending<I, P>, 'params'>[] = [];
  const ids = new Set<string>();
  inputs.forEach((input, index) => {
    try {
      const planned = plan(input);
      if ('answer' in planned) answers[index] = answer(planned.answer);
      else if (!batched) answers[index] = answerOf(() => single(input));
      else if (ids.has(planned.id)) later.push({ index, input });
      else {
        ids.add(planned.id);
        inBatch.push({ index, input, params: planned.params });
      }
    } catch (error) {
      answers[index] = Promise.resolve({ kind: 'error', error });
    }
  });
  if (inBatch.length > 0) for (const [index, result] of await sendBatch(inBatch)) answers[index] = result;
  const first = await Promise.all(answers);
  for (const { index, input } of later) first[index] = await answerOf(() => single(input));
  return first;
}

/** What a subclass (the transactional store) shares with the claim store: the resolved options, the one cache, the warnings logged once. */
export interface ClaimStoreParts {
  readonly options: ResolvedStoreOptions;
  readonly cache: CompletedCache | undefined;
  readonly warnings: StoreWarnings;
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
 * 15 kB minified with the batched calls). Every state change is one
 * conditional request (taking over a free item: a refused `PutItem`, then
 * an `UpdateItem`); a lost
 * condition returns the record that caused it from the same round trip
 * (`ALL_OLD`), so no single call reads before it writes. `claimMany` and
 * `completeMany` send a batch's claims and completions as PartiQL
 * statements in `BatchExecuteStatement`s (needs `dynamodb:PartiQLInsert`,
 * `dynamodb:PartiQLUpdate` and `dynamodb:BatchGetItem`; refused, the store
 * sends one request per record from then on, and logs it once: `logger`).
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
  readonly #warnings: StoreWarnings;
  /** Whether claimMany and completeMany send PartiQL batches (off once the role was refused PartiQL). */
  #batched = true;
  /**
   * Whether batched completions ask for the completed item (`RETURNING ALL NEW *`), for the cache: AWS documents the
   * clause for `ExecuteStatement` only. A table that refuses it gets batches without it from then on.
   */
  #returning = true;

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(options: DynamoDBClaimStoreOptions) {
    // An error names the class built: the subclass's prototype, set before this runs, has `commit`.
    const resolved = resolveStoreOptions(options, 'commit' in this ? 'DynamoDBIdempotencyStore' : 'DynamoDBClaimStore');
    // Every request goes through this view of the client: a missing table is an error that names it (table-missing.ts).
    this.#options = { ...resolved, client: reportingMissingTable(resolved.client, resolved.tableName) };
    const { cache, clock, logger, tableName } = this.#options;
    this.#cache = cache === false ? undefined : new CompletedCache(cache.maxEntries, clock);
    this.#warnings = new StoreWarnings(logger, tableName);
  }

  /** The resolved options, the one cache and the warnings, for the transactional store that extends this one. */
  [claimStoreParts](): ClaimStoreParts {
    return { options: this.#options, cache: this.#cache, warnings: this.#warnings };
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
    const planned = this.#planClaim(input);
    return 'answer' in planned ? planned.answer : this.#claim(input, planned.params);
  }

  /** A claim's answer from the cache (a COMPLETED record), or its item's id and request parameters under a new owner token. */
  #planClaim(input: ClaimInput): { readonly answer: ClaimResult } | { readonly id: string; readonly params: ClaimParams } {
    checkLease('claim', input.leaseMs);
    const id = this.recordId(input.consumer, input.key);
    const cached = this.#cache?.lookup(id);
    if (cached !== undefined) return { answer: { kind: 'completed', id, existing: cached, fromCache: true } };
    return { id, params: this.#claimParams(input, id, randomUUID()) };
  }

  #claimParams(input: ClaimInput, id: string, token: string): ClaimParams {
    const { tableName, retentionMs, clock, trackInflight } = this.#options;
    const { leaseMs, payloadHash, messageId } = input;
    return { tableName, id, token, now: clock.now(), leaseMs, retentionMs, payloadHash, messageId, trackInflight };
  }

  /** The single claim: the fresh-key `PutItem`, then the takeover `UpdateItem` for a free item. */
  async #claim(input: ClaimInput, params: ClaimParams): Promise<ClaimResult> {
    const { client } = this.#options;
    const { id } = params;
    const put = claimPutRequest(params);
    let existing: IdempotencyRecord;
    try {
      await client.send(new PutCommand(put));
      return { kind: 'claimed', id, token: params.token, record: toRecord(put.Item) };
    } catch (err) {
      existing = refusedClaim(err, input.key, id);
    }
    return this.#decideFound(input, params, existing);
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
    const { client } = this.#options;
    const request = completeRequest(this.#completion(input));
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

  /**
   * What a completion writes: the result encoded once (the same map is
   * measured and sent), and refused before any request when the record
   * would pass 400 KB.
   */
  #completion(input: CompleteInput): CompleteParams {
    const { tableName, retentionMs, clock } = this.#options;
    const result = input.storeResult === true ? encodeResult(input.result) : undefined;
    if (result !== undefined) {
      const size = completedSizeEstimate(input.id, input.token, result);
      if (size > MAX_ITEM_BYTES) throw tooLarge(input.id, size);
    }
    return { tableName, id: input.id, token: input.token, now: clock.now(), retentionMs, ...(result === undefined ? {} : { result }) };
  }

  /**
   * Claims several keys in PartiQL `BatchExecuteStatement`s of fresh-key `INSERT`s (25 a request); a cached COMPLETED
   * record answers without one. A key with an item answers `DuplicateItem`, without the item: those are read in one
   * strongly consistent `BatchGetItem` and decided as in `claim`. A key the read misses, and every statement of a
   * failed request, goes the single path under the same owner token (a claim that landed unanswered is still ours).
   */
  async claimMany(inputs: readonly ClaimInput[]): Promise<StoreAnswer<ClaimResult>[]> {
    return inBatches(
      inputs,
      (input) => this.#planClaim(input),
      async (batched) => {
        const answers = new Map<number, Promise<StoreAnswer<ClaimResult>>>();
        const items = batched.map(({ params }) => claimPutRequest(params).Item);
        const sent = await this.#send(items.map((item) => claimInsertStatement(this.#options.tableName, item)));
        const found: Pending[] = [];
        batched.forEach((pending, i) => {
          const { index, input, params } = pending;
          const s = sent[i];
          const item = items[i];
          if (s !== undefined && 'answer' in s && s.answer.Error === undefined && item !== undefined) {
            answers.set(index, answer({ kind: 'claimed', id: params.id, token: params.token, record: toRecord(item) }));
          } else if (s !== undefined && 'answer' in s && s.answer.Error?.Code === 'DuplicateItem') found.push(pending);
          else
            answers.set(
              index,
              answerOf(() => this.#claim(input, this.#claimParams(input, params.id, params.token))),
            );
        });
        for (const [index, result] of await this.#claimFound(found)) answers.set(index, result);
        return answers;
      },
      (input) => this.claim(input),
      this.#batched,
    );
  }

  /**
   * The keys whose INSERT met an item: the items read at once, each decided
   * as the refused `PutItem` of `claim` would decide it, by index.
   */
  async #claimFound(found: readonly Pending[]): Promise<Map<number, Promise<StoreAnswer<ClaimResult>>>> {
    const answers = new Map<number, Promise<StoreAnswer<ClaimResult>>>();
    if (found.length === 0) return answers;
    let records: ReadonlyMap<string, IdempotencyRecord> | undefined;
    try {
      records = await readRecords(
        this.#options.client,
        this.#options.tableName,
        found.map((f) => f.params.id),
      );
    } catch (err) {
      if (isAccessDenied(err)) this.#warnings.warn('batch-read-denied', err, 'dynamodb:BatchGetItem');
      records = undefined; // the single path decides each
    }
    for (const { index, input, params } of found) {
      const again = this.#claimParams(input, params.id, params.token);
      const existing = records?.get(params.id);
      answers.set(
        index,
        answerOf(() => (existing === undefined ? this.#claim(input, again) : this.#decideFound(input, again, existing))),
      );
    }
    return answers;
  }

  /** A claim refused by `existing` (found by the `PutItem`, or read after a `DuplicateItem`): decided, or the free item taken over. */
  async #decideFound(input: ClaimInput, params: ClaimParams, existing: IdempotencyRecord): Promise<ClaimResult> {
    // Two requests only for a key whose item is free again: a takeover, a retry after mark-failed, a record past retention.
    if (claimVerdict(existing, params.now) !== 'free') return this.#notClaimed(existing, params);
    try {
      const out = await this.#options.client.send(new UpdateCommand(claimRequest(params)));
      return { kind: 'claimed', id: params.id, token: params.token, record: toRecord(out.Attributes ?? {}) };
    } catch (err) {
      return this.#notClaimed(refusedClaim(err, input.key, params.id), params);
    }
  }

  /**
   * Completes several claims in PartiQL `BatchExecuteStatement`s of fenced `UPDATE`s (25 a request), each under the
   * single completion's condition. A too-large result is refused before any request, as by `complete`; a statement that
   * fails, and every statement of a failed request, goes the single path, so its rules hold unchanged.
   */
  async completeMany(inputs: readonly CompleteInput[]): Promise<StoreAnswer<FencedWriteResult>[]> {
    return inBatches(
      inputs,
      (input) => ({ id: input.id, params: this.#completion(input) }),
      async (batched) => {
        const returning = this.#returning;
        const sent = await this.#send(batched.map(({ params }) => completeStatement(params, returning)));
        const invalid = (s: (typeof sent)[number] | undefined) =>
          s !== undefined && ('failed' in s ? isAwsError(s.failed, 'ValidationException') : s.answer.Error?.Code === 'ValidationError');
        const refusal = returning && this.#returning ? sent.find(invalid) : undefined;
        if (refusal !== undefined) {
          this.#returning = false;
          this.#warnings.warn('returning-off', 'failed' in refusal ? refusal.failed : refusal.answer.Error);
        }
        return new Map(
          batched.map(({ index, input }, i) => {
            const s = sent[i];
            if (s === undefined || !('answer' in s) || s.answer.Error !== undefined) return [index, answerOf(() => this.complete(input))];
            const record = s.answer.Item === undefined ? undefined : toRecord(s.answer.Item);
            this.#cache?.remember(record);
            return [index, answer(record === undefined ? { kind: 'ok' } : { kind: 'ok', record })];
          }),
        );
      },
      (input) => this.complete(input),
      this.#batched,
    );
  }

  /**
   * The statements' answers; a table the role may not reach with PartiQL turns batching off for this store (the single
   * path still works), logged once with the action refused (named by AWS's message, else by the statement's verb).
   */
  async #send(statements: readonly Statement[]): Promise<Awaited<ReturnType<typeof sendStatements>>> {
    const sent = await sendStatements(this.#options.client, statements);
    const denial = sent.find((s) => isAccessDenied('failed' in s ? s.failed : s.answer.Error));
    if (denial !== undefined && this.#batched) {
      this.#batched = false;
      const verb = statements[0]?.Statement?.startsWith('INSERT') === true ? 'dynamodb:PartiQLInsert' : 'dynamodb:PartiQLUpdate';
      this.#warnings.warn('batching-off', 'failed' in denial ? denial.failed : denial.answer.Error, verb);
    }
    return sent;
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
