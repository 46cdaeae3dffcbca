/**
 * The DynamoDB `TransactionalIdempotencyStore`: the claim store plus commit, group commit and the stale-claims query.
 * I/O only: the commit path is in commit.ts, group commit's rounds in group-commit.ts, the decisions in the helpers.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { claimStoreParts, DynamoDBClaimStore } from './claim-store.js';
import { commitRefused, committed, prepare, sendOne, type CommitContext } from './commit.js';
import { readRecords } from './statements.js';
import type { IdempotencyRecord } from '../../engine/record.js';
import { commitInRounds, type PreparedCommit } from './group-commit.js';
import { knownCompleted, type KnowsCompleted } from '../../engine/warm-cache.js';
import type { DynamoDBIdempotencyStoreOptions } from './options.js';
import { queryStaleClaims } from './stale.js';
import { isAccessDenied, type StoreWarnings } from './warnings.js';
import type { CommitInput, CommitResult, GroupCommitAnswer, StaleClaim, TransactionalIdempotencyStore } from '../../engine/store.js';

/**
 * Idempotency records in a DynamoDB table (see `infra/tables.json`), for every strategy: the claim methods of
 * {@link DynamoDBClaimStore}, plus `commit` (transaction strategy) and `staleClaims`. Every state change is a
 * conditional request whose lost condition returns the record that caused it (`ALL_OLD`). A commit's idempotency Put
 * is first sent under the fresh-key condition (a FAILED or expired record refuses it, and it is sent again under the
 * full rule); group commit may read the batch's records first (`getMany`, the duplicate probe), as a hint only.
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
export class DynamoDBIdempotencyStore extends DynamoDBClaimStore implements TransactionalIdempotencyStore, KnowsCompleted {
  readonly #commit: CommitContext;
  readonly #warnings: StoreWarnings;

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(options: DynamoDBIdempotencyStoreOptions) {
    super(options);
    const { options: resolved, cache, warnings } = this[claimStoreParts]();
    this.#warnings = warnings;
    this.#commit = {
      options: resolved,
      cache,
      recordId: (consumer, key) => this.recordId(consumer, key),
      get: (id) => this.get(id),
    };
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
   * Group commit: the commits packed into as few `TransactWriteItems` as the limits allow (no item twice, at most 100
   * actions and 4 MB), sent side by side; each record stays atomic on its own. A cancelled group is read per record: a
   * duplicate or a failed condition decides that record alone; the others are sent again. Each answer is what
   * {@link commit} would return or throw. `found` (from {@link getMany}): a record found COMPLETED is answered as a
   * duplicate without sending it; one held by a live claim or under another payload is sent alone.
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
    const { client } = this.#commit.options;
    const sent = await commitInRounds(ready, {
      send: async (items) => void (await client.send(new TransactWriteCommand({ TransactItems: items }))),
      single: (c) => sendOne(this.#commit, c),
      refused: (err, reasons, c) => commitRefused(this.#commit, err, reasons, c),
      committed: (c) => committed(this.#commit, c),
    });
    return inputs.map((_, i) => answers.get(i) ?? sent.get(i) ?? { kind: 'error', error: new Error('No answer for this commit.') });
  }

  /**
   * Group commit's duplicate probe: the records under `ids`, in strongly consistent `BatchGetItem`s (unprocessed:
   * absent). A role refused `BatchGetItem` is logged once (`logger`); the error still goes to the caller.
   */
  async getMany(ids: readonly string[]): Promise<ReadonlyMap<string, IdempotencyRecord>> {
    try {
      return await readRecords(this.#commit.options.client, this.#commit.options.tableName, ids);
    } catch (err) {
      if (isAccessDenied(err)) this.#warnings.warn('batch-read-denied', err, 'dynamodb:BatchGetItem');
      throw err;
    }
  }

  /**
   * Group commit, before its probe: whether the warm-container cache (the
   * `cache` option) holds `id` as COMPLETED; always false without one. Such a
   * record is answered from the cache by {@link commitGroup}, so the probe
   * leaves it out.
   */
  [knownCompleted](id: string): boolean {
    return this.#commit.cache?.has(id) === true;
  }

  /** IN_PROGRESS claims whose lease ended before `leaseEndedBefore`, oldest first. Read-only. */
  async staleClaims(options: { readonly leaseEndedBefore: number; readonly limit?: number }): Promise<StaleClaim[]> {
    const { client, tableName } = this.#commit.options;
    return queryStaleClaims(client, tableName, options.leaseEndedBefore, options.limit);
  }
}
