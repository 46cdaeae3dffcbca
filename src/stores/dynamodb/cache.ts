/**
 * The warm-container cache: COMPLETED records this store instance has seen,
 * so a duplicate delivered again to the same container costs no request.
 */
import type { Clock } from '../../engine/clock.js';
import { LruCache } from './lru.js';
import type { IdempotencyRecord } from '../../engine/record.js';
import { decodeResult, encodeResult, isLive } from './records.js';

/** A cached record keeps its result as JSON text: each lookup decodes its own copy. */
interface Entry {
  readonly record: IdempotencyRecord;
  readonly result: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Bounded cache of COMPLETED records by id. Only COMPLETED is ever stored:
 * an IN_PROGRESS answer can change at any moment (the owner may fail), and
 * caching it would wrongly acknowledge or wrongly delay. Entries stop
 * counting when the record's retention (`expiresAt`) passes by the injected
 * clock, exactly as the table's conditions would treat them.
 *
 * Every lookup hands out a record of its own, with its result decoded afresh
 * from the stored JSON text: a caller that mutates a replayed result changes
 * neither the cache nor the next replay.
 */
export class CompletedCache {
  readonly #entries: LruCache<string, Entry>;
  readonly #clock: Clock;

  constructor(maxEntries: number, clock: Clock) {
    this.#entries = new LruCache(maxEntries);
    this.#clock = clock;
  }

  /** A copy of the cached COMPLETED record for `id` if it is still within its retention. */
  lookup(id: string): IdempotencyRecord | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (!isLive(entry.record, this.#clock.now())) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry.result === undefined ? { ...entry.record } : { ...entry.record, result: decodeResult(entry.result) };
  }

  /**
   * Whether `id` is cached and still within its retention, as {@link lookup}
   * would find it, without copying the record (group commit asks it of every
   * record before its duplicate probe).
   */
  has(id: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined) return false;
    if (isLive(entry.record, this.#clock.now())) return true;
    this.#entries.delete(id);
    return false;
  }

  /** Remembers a copy of a record if it is COMPLETED and live; anything else is ignored. */
  remember(record: IdempotencyRecord | undefined): void {
    if (record?.status !== 'COMPLETED' || !isLive(record, this.#clock.now())) return;
    const { result, ...rest } = record;
    let encoded: Readonly<Record<string, unknown>> | undefined;
    try {
      encoded = 'result' in record ? encodeResult(result) : undefined;
    } catch {
      return; // not JSON (only a foreign store could hand one over): not cached, so never replayed wrong
    }
    this.#entries.set(record.id, { record: rest, result: encoded });
  }
}
