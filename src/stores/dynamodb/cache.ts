/** The warm-container cache: COMPLETED records this store has seen, so a duplicate in the same container costs no request. */
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
 * Bounded cache of COMPLETED records by id (an IN_PROGRESS answer can change at any moment: caching it would wrongly
 * acknowledge or delay). Entries stop counting when the record's retention passes by the injected clock, as in the
 * table's conditions. Every lookup decodes its own copy of the result: a caller's mutation reaches no other replay.
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

  /** Whether {@link lookup} would find `id`, without copying the record (group commit asks it before its probe). */
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
