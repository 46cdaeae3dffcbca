/**
 * A small bounded least-recently-used map. Pure (no AWS, no timers): the
 * store's warm-container cache uses it, and expiry is decided by the caller
 * with its injected clock, so tests can move time without sleeping.
 */

/**
 * Bounded LRU map: reading or writing an entry makes it the most recent; once
 * `maxEntries` is exceeded the least recent entry is dropped.
 *
 * A `Map` keeps insertion order, so "delete then set" moves a key to the end
 * and the first key is always the least recently used one.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, V>();
  /** Upper bound on the number of entries kept. */
  readonly maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${String(maxEntries)}.`);
    }
    this.maxEntries = maxEntries;
  }

  /** Number of entries currently held. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key` (marking it most recently used), or `undefined`. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Whether `key` is held, without changing its recency. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Stores `value` as the most recent entry, evicting the least recent ones over the bound. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  /** Removes `key`; returns whether it was held. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Removes every entry. */
  clear(): void {
    this.#entries.clear();
  }
}
