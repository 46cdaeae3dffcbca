/** The warm-container cache: COMPLETED records this store has seen, so a duplicate in the same container costs no request. */
import type { Clock } from '../../engine/clock.js';
import type { IdempotencyRecord } from '../../engine/record.js';
import { decodeResult, encodeResult, isLive } from './records.js';

/** A cached record keeps its result as JSON text: each lookup decodes its own copy. */
interface Entry {
  readonly record: IdempotencyRecord;
  readonly result: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Bounded cache of COMPLETED records by id (an IN_PROGRESS answer can change at any moment: caching it would wrongly
 * acknowledge or delay), least recently used out first. Entries stop counting when the record's retention passes by
 * the injected clock, as in the table's conditions. Every lookup decodes its own copy of the result: a caller's
 * mutation reaches no other replay. A `Map` keeps insertion order, so "delete then set" makes an entry the most recent
 * and the first key is always the least recently used one.
 */
export class CompletedCache {
  readonly #entries = new Map<string, Entry>();
  /** A positive integer (the store's options are checked before it is built). */
  readonly #maxEntries: number;
  readonly #clock: Clock;

  constructor(maxEntries: number, clock: Clock) {
    this.#maxEntries = maxEntries;
    this.#clock = clock;
  }

  /** The entry for `id`, made the most recent, if it is still within its retention (one past it is dropped). */
  #live(id: string): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    this.#entries.delete(id);
    if (!isLive(entry.record, this.#clock.now())) return undefined;
    this.#entries.set(id, entry);
    return entry;
  }

  /** A copy of the cached COMPLETED record for `id` if it is still within its retention. */
  lookup(id: string): IdempotencyRecord | undefined {
    const entry = this.#live(id);
    if (entry === undefined) return undefined;
    return entry.result === undefined ? { ...entry.record } : { ...entry.record, result: decodeResult(entry.result) };
  }

  /** Whether {@link lookup} would find `id`, without copying the record (group commit asks it before its probe). */
  has(id: string): boolean {
    return this.#live(id) !== undefined;
  }

  /** Remembers a copy of a record if it is COMPLETED and live (the most recent entry, the least recent one out over the bound); anything else is ignored. */
  remember(record: IdempotencyRecord | undefined): void {
    if (record?.status !== 'COMPLETED' || !isLive(record, this.#clock.now())) return;
    const { result, ...rest } = record;
    let encoded: Readonly<Record<string, unknown>> | undefined;
    try {
      encoded = 'result' in record ? encodeResult(result) : undefined;
    } catch {
      return; // not JSON (only a foreign store could hand one over): not cached, so never replayed wrong
    }
    this.#entries.delete(record.id);
    this.#entries.set(record.id, { record: rest, result: encoded });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}
