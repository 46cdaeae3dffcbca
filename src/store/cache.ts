/**
 * The warm-container cache: COMPLETED records this store instance has seen,
 * so a duplicate delivered again to the same container costs no request.
 */
import type { Clock } from '../core/clock.js';
import { LruCache } from '../core/lru.js';
import type { IdempotencyRecord } from '../core/record.js';
import { isLive } from './records.js';

/**
 * Bounded cache of COMPLETED records by id. Only COMPLETED is ever stored:
 * an IN_PROGRESS answer can change at any moment (the owner may fail), and
 * caching it would wrongly acknowledge or wrongly delay. Entries stop
 * counting when the record's retention (`expiresAt`) passes by the injected
 * clock, exactly as the table's conditions would treat them.
 *
 * @example
 * ```ts
 * import { systemClock } from '../core/clock.js';
 * import { CompletedCache } from './cache.js';
 * const cache = new CompletedCache(1000, systemClock);
 * cache.remember({ id: 'c#k', status: 'COMPLETED', expiresAt: 4_000_000_000, attempts: 1 });
 * cache.lookup('c#k'); // the record, without a request
 * ```
 */
export class CompletedCache {
  readonly #entries: LruCache<string, IdempotencyRecord>;
  readonly #clock: Clock;

  constructor(maxEntries: number, clock: Clock) {
    this.#entries = new LruCache(maxEntries);
    this.#clock = clock;
  }

  /** The cached COMPLETED record for `id` if it is still within its retention. */
  lookup(id: string): IdempotencyRecord | undefined {
    const record = this.#entries.get(id);
    if (record === undefined) return undefined;
    if (isLive(record, this.#clock.now())) return record;
    this.#entries.delete(id);
    return undefined;
  }

  /** Remembers a record if it is COMPLETED and live; anything else is ignored. */
  remember(record: IdempotencyRecord | undefined): void {
    if (record?.status === 'COMPLETED' && isLive(record, this.#clock.now())) this.#entries.set(record.id, record);
  }
}
