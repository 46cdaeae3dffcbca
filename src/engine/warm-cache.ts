/**
 * What group commit asks a store's warm-container cache before its
 * duplicate probe: whether a record id is known there as COMPLETED. Such a
 * record is answered from the cache when the group is committed (before the
 * probe's answer or any transaction is looked at), so reading it in the
 * probe would cost a key of the read and tell nothing.
 */

/**
 * The key of the store method that answers it: a symbol no entry exports,
 * so the method stays out of the store's public type (as `claimStoreParts`).
 */
export const knownCompleted: unique symbol = Symbol('knownCompleted');

/** A store with a warm-container cache it lets group commit consult. */
export interface KnowsCompleted {
  /** Whether the cache holds `id` as COMPLETED within its retention; no request. */
  [knownCompleted](id: string): boolean;
}

/** Whether `store` can say which records its cache knows. */
export function knowsCompleted(store: object): store is KnowsCompleted {
  return typeof (store as Partial<KnowsCompleted>)[knownCompleted] === 'function';
}
