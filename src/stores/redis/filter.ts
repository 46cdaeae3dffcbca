/**
 * A Redis filter in front of any store: hot duplicates and live claims are
 * answered from a Redis marker without a request to the store behind it,
 * which stays the only source of truth. Every Redis call is best effort: an
 * error, a timeout, a miss or a flushed server falls through to the store.
 */
import { claimVerdict } from '../../engine/claim.js';
import { EffectivelyOnceError } from '../../engine/errors.js';
import { hasMethods } from '../../engine/options.js';
import type { IdempotencyRecord } from '../../engine/record.js';
import type {
  ClaimInput,
  ClaimResult,
  CommitInput,
  CommitResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  ReleaseInput,
  RenewInput,
  TransactionalIdempotencyStore,
} from '../../engine/store.js';
import { isTransactionalStore } from '../../engine/store.js';
import { settleWithin } from '../../engine/time.js';
import { replyText } from './connection.js';
import { markerKey, markerText, recordFromMarker } from './fields.js';
import { resolveRedisFilterOptions, type RedisFilterOptions, type ResolvedRedisFilterOptions } from './options.js';
import { clearInProgressScript, markInProgressScript } from './scripts.js';

/** What the filter did since it was built: for tests, metrics and logs. */
export interface RedisFilterCounts {
  /** Claims, commits and reads answered "completed" by a marker, without the inner store. */
  readonly completedHits: number;
  /** Claims answered "in progress" by a marker, without the inner store. */
  readonly inProgressHits: number;
  /** Lookups that found no usable marker (absent, expired, unreadable, or Redis failed) and asked the inner store. */
  readonly misses: number;
  /** Markers written (in progress after a claim, completed after the inner store decided it). */
  readonly markersWritten: number;
  /** Completed records not cached because their marker would exceed `maxMarkerBytes`. */
  readonly markersSkipped: number;
  /** Redis errors swallowed (the inner store decided instead). */
  readonly errors: number;
  /** Redis calls abandoned after `timeoutMs` (the inner store decided instead). */
  readonly timeouts: number;
}

/**
 * What {@link withRedisFilter} returns: an `IdempotencyStore` that asks Redis
 * first (with `commit` too when `S` has it), the store it filters, and what it
 * did so far.
 */
export interface RedisFilter<S extends IdempotencyStore = IdempotencyStore> extends IdempotencyStore {
  /** The store that decides: every write goes to it, every miss is read from it. */
  readonly inner: S;
  /** A snapshot of what the filter did so far. */
  counts(): RedisFilterCounts;
}

type Counter = { -readonly [K in keyof RedisFilterCounts]: number };

const TIMEOUT = Symbol('timeout');
const storeRule = hasMethods('an IdempotencyStore', 'recordId', 'claim', 'complete', 'release', 'get');

/**
 * The {@link RedisFilter} over a store without `commit`; built by {@link withRedisFilter}.
 * Markers are written only from what the inner store returned, and a
 * completed one only after the inner store completed: Redis never
 * acknowledges what the inner store has not decided.
 */
class FilteredStore<S extends IdempotencyStore = IdempotencyStore> implements RedisFilter<S> {
  /** The store that decides: every write goes to it, every miss is read from it. */
  readonly inner: S;
  protected readonly options: ResolvedRedisFilterOptions;
  /**
   * The inner store's `renew`, present when it has one (the heartbeat). The
   * in-progress marker keeps its first lease: past it the filter only misses
   * and asks the inner store, which still says in progress.
   */
  readonly renew?: (input: RenewInput) => Promise<FencedWriteResult>;
  readonly #counts: Counter = {
    completedHits: 0,
    inProgressHits: 0,
    misses: 0,
    markersWritten: 0,
    markersSkipped: 0,
    errors: 0,
    timeouts: 0,
  };

  /** @throws TypeError naming the first unknown, missing or wrongly typed option. */
  constructor(inner: S, options: RedisFilterOptions) {
    if (!storeRule.check(inner)) {
      throw new TypeError('withRedisFilter: "store" must be an IdempotencyStore (recordId, claim, complete, release and get methods).');
    }
    this.options = resolveRedisFilterOptions(options);
    this.inner = inner;
    const renew = inner.renew;
    if (typeof renew === 'function') this.renew = (input) => renew.call(inner, input);
  }

  /** A snapshot of what the filter did so far. */
  counts(): RedisFilterCounts {
    return { ...this.#counts };
  }

  /** The inner store's record id. */
  recordId(consumer: string, key: string): string {
    return this.inner.recordId(consumer, key);
  }

  /** A live marker answers (completed or in progress); otherwise the inner store claims, and the marker follows its answer. */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    const id = this.inner.recordId(input.consumer, input.key);
    const marker = await this.lookup(id);
    if (marker !== undefined) {
      const verdict = claimVerdict(marker, this.options.clock.now());
      if (verdict === 'duplicate') return this.tally('completedHits', { kind: 'completed', id, existing: marker, fromCache: true });
      if (verdict === 'in-progress') return this.tally('inProgressHits', { kind: 'in-progress', id, existing: marker });
    }
    this.tally('misses', undefined);
    const result = await this.inner.claim(input);
    if (result.kind === 'claimed') await this.#markInProgress(result.record);
    if (result.kind === 'completed') await this.markCompleted(result.existing);
    return result;
  }

  /** The inner store completes; only once it said ok does the marker say completed. */
  async complete(input: CompleteInput): Promise<FencedWriteResult> {
    const result = await this.inner.complete(input);
    const record = result.kind === 'ok' ? result.record : undefined;
    // No completed marker (none returned, too large, Redis failed): the in-progress one must not outlive the claim.
    const marked = record?.status === 'COMPLETED' && (await this.markCompleted(record));
    if (!marked) await this.#clearInProgress(input.id, input.token);
    return result;
  }

  /**
   * Clears this owner's in-progress marker, then the inner store releases.
   * In that order a crash in between leaves no marker claiming more than the
   * inner store does.
   */
  async release(input: ReleaseInput): Promise<FencedWriteResult> {
    await this.#clearInProgress(input.id, input.token);
    return this.inner.release(input);
  }

  /** A completed marker answers; anything else is read from the inner store. */
  async get(id: string): Promise<IdempotencyRecord | undefined> {
    const marker = await this.lookup(id);
    if (marker !== undefined && claimVerdict(marker, this.options.clock.now()) === 'duplicate') {
      return this.tally('completedHits', marker);
    }
    this.tally('misses', undefined);
    const record = await this.inner.get(id);
    if (record?.status === 'COMPLETED') await this.markCompleted(record);
    return record;
  }

  /** The marker stored under `id`, if Redis answers in time with a readable one. */
  protected async lookup(id: string): Promise<IdempotencyRecord | undefined> {
    const key = this.#key(id);
    const reply = await this.#attempt('lookup', () => this.options.redis.sendCommand(['GET', key], key));
    const text = replyText(reply);
    if (text === undefined) return undefined;
    const record = recordFromMarker(id, text);
    if (record === undefined) this.#failed(new EffectivelyOnceError(`The Redis value at ${key} is not a marker; ignored.`), 'lookup');
    return record;
  }

  /** Caches a record the inner store decided is COMPLETED, for the rest of its retention; false when it was not written. */
  protected async markCompleted(record: IdempotencyRecord): Promise<boolean> {
    const ttl = record.expiresAt * 1000 - this.options.clock.now();
    const text = this.#marker(record);
    if (ttl <= 0 || text === undefined) return false;
    const key = this.#key(record.id);
    const sent = await this.#attempt('markCompleted', () =>
      this.options.redis.sendCommand(['SET', key, text, 'PX', String(Math.ceil(ttl))], key),
    );
    if (sent === undefined) return false;
    this.#counts.markersWritten += 1;
    return true;
  }

  // Written by the owner only, right after its claim: its own clear always comes later.
  async #markInProgress(record: IdempotencyRecord): Promise<void> {
    const now = this.options.clock.now();
    if (record.leaseUntil === undefined) return;
    const ttl = Math.min(record.leaseUntil, record.expiresAt * 1000) - now;
    const text = this.#marker(record);
    if (ttl <= 0 || text === undefined) return;
    const key = this.#key(record.id);
    const args = [text, String(Math.ceil(ttl)), String(now)];
    const sent = await this.#attempt('markInProgress', () => markInProgressScript.run(this.options.redis, key, args));
    if (sent !== undefined) this.#counts.markersWritten += 1;
  }

  async #clearInProgress(id: string, token: string): Promise<void> {
    const key = this.#key(id);
    await this.#attempt('clearInProgress', () => clearInProgressScript.run(this.options.redis, key, [token]));
  }

  #marker(record: IdempotencyRecord): string | undefined {
    let text: string;
    try {
      text = markerText(record);
    } catch (err) {
      this.#failed(err, 'marker'); // a result an inner store kept that is not JSON: not cacheable
      return undefined;
    }
    if (Buffer.byteLength(text) <= this.options.maxMarkerBytes) return text;
    this.#counts.markersSkipped += 1;
    return undefined;
  }

  #key(id: string): string {
    return markerKey(this.options.keyPrefix, id);
  }

  /** Counts one lookup's fate and passes `value` through. */
  protected tally<T>(counter: 'completedHits' | 'inProgressHits' | 'misses', value: T): T {
    this.#counts[counter] += 1;
    return value;
  }

  /** Runs one Redis call; `undefined` (counted, reported) when it fails or outlasts `timeoutMs`. */
  async #attempt(operation: string, send: () => Promise<unknown>): Promise<unknown> {
    try {
      const sending = send();
      sending.catch(() => {}); // it may fail after the timeout won the race
      const reply = await settleWithin([sending], this.options.timeoutMs, TIMEOUT);
      if (reply !== TIMEOUT) return reply ?? null;
      this.#counts.timeouts += 1;
      this.#report(new EffectivelyOnceError(`Redis did not answer ${operation} within ${this.options.timeoutMs} ms.`), operation);
      return undefined;
    } catch (err) {
      this.#failed(err, operation);
      return undefined;
    }
  }

  #failed(error: unknown, operation: string): void {
    this.#counts.errors += 1;
    this.#report(error, operation);
  }

  #report(error: unknown, operation: string): void {
    try {
      this.options.onError?.(error, operation);
    } catch {
      // A failing logger must not fail a record the inner store can decide.
    }
  }
}

/**
 * The {@link RedisFilter} over a store with `commit` (the DynamoDB store); built by
 * {@link withRedisFilter}. A completed marker answers a duplicate commit; a
 * commit or a duplicate the inner store reports is cached. An in-progress
 * marker does not answer a commit: the inner store's own condition does.
 */
class FilteredTransactionalStore<S extends TransactionalIdempotencyStore = TransactionalIdempotencyStore>
  extends FilteredStore<S>
  implements TransactionalIdempotencyStore
{
  /** A completed marker answers a duplicate; otherwise the inner store commits, and a completion it reports is cached. */
  async commit(input: CommitInput): Promise<CommitResult> {
    const id = this.inner.recordId(input.consumer, input.key);
    const marker = await this.lookup(id);
    if (marker !== undefined && claimVerdict(marker, this.options.clock.now()) === 'duplicate') {
      return this.tally('completedHits', { kind: 'duplicate', id, existing: marker, fromCache: true });
    }
    this.tally('misses', undefined);
    const result = await this.inner.commit(input);
    if (result.kind === 'committed') await this.markCompleted(result.record);
    if (result.kind === 'duplicate') await this.markCompleted(result.existing);
    return result;
  }
}

/**
 * Puts a Redis filter in front of `store`: a hot duplicate is answered
 * "completed", and a key under a live claim "in progress", from a Redis
 * marker without a request to `store`. `store` stays the source of truth:
 * every write goes to it, and a Redis miss, restart, eviction, flush, error
 * or timeout (`timeoutMs`) falls through to it. The result has `commit` when
 * `store` has (transaction strategy). Give it the same clock as `store`.
 *
 * @throws TypeError when `store` is not a store, or naming the first unknown or wrongly typed option.
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { createClient } from 'redis';
 * import { DynamoDBIdempotencyStore, withRedisFilter } from 'effectively-once';
 *
 * const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
 * // Fail fast while disconnected: the filter then asks DynamoDB instead of waiting.
 * const client = await createClient({ url: 'redis://127.0.0.1:6379', disableOfflineQueue: true }).connect();
 * const store = withRedisFilter(new DynamoDBIdempotencyStore({ client: doc, tableName: 'idempotency' }), {
 *   redis: { sendCommand: (args) => client.sendCommand([...args]) },
 * });
 * console.log(store.counts().completedHits); // 0 so far
 * ```
 */
export function withRedisFilter<S extends TransactionalIdempotencyStore>(
  store: S,
  options: RedisFilterOptions,
): RedisFilter<S> & TransactionalIdempotencyStore;
export function withRedisFilter<S extends IdempotencyStore>(store: S, options: RedisFilterOptions): RedisFilter<S>;
export function withRedisFilter(store: IdempotencyStore, options: RedisFilterOptions): RedisFilter {
  return isTransactionalStore(store) ? new FilteredTransactionalStore(store, options) : new FilteredStore(store, options);
}
