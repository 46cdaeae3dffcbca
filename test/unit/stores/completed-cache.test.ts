/**
 * The store's warm-container cache (CompletedCache): bounded, least recently
 * used out first, COMPLETED records only, each lookup its own copy, and an
 * entry past its retention (by the injected clock) dropped.
 */
import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import { CompletedCache } from '../../../src/stores/dynamodb/cache.js';
import { ManualClock } from '../../../src/testing/clock.js';

const NOW = Date.UTC(2025, 0, 1);
const completed = (id: string, more: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  id,
  status: 'COMPLETED',
  expiresAt: NOW / 1000 + 3600,
  attempts: 1,
  ...more,
});

describe('CompletedCache', () => {
  it('keeps at most maxEntries, dropping the least recently remembered first', () => {
    const cache = new CompletedCache(2, new ManualClock(NOW));
    for (const id of ['a', 'b', 'c']) cache.remember(completed(id));
    expect(cache.has('a')).toBe(false);
    expect(cache.has('b')).toBe(true);
    expect(cache.has('c')).toBe(true);
  });

  it('a lookup (or has) makes an entry the most recent', () => {
    const cache = new CompletedCache(2, new ManualClock(NOW));
    cache.remember(completed('a'));
    cache.remember(completed('b'));
    expect(cache.lookup('a')?.id).toBe('a');
    cache.remember(completed('c'));
    expect(cache.has('b')).toBe(false);
    expect(cache.has('a')).toBe(true);
    cache.remember(completed('d'));
    expect(cache.has('c')).toBe(false);
    expect(cache.has('a')).toBe(true);
  });

  it('remembering a key again refreshes it without growing', () => {
    const cache = new CompletedCache(2, new ManualClock(NOW));
    cache.remember(completed('a', { messageId: 'm1' }));
    cache.remember(completed('b'));
    cache.remember(completed('a', { messageId: 'm2' }));
    cache.remember(completed('c'));
    expect(cache.lookup('a')?.messageId).toBe('m2');
    expect(cache.has('b')).toBe(false);
    expect(cache.has('c')).toBe(true);
  });

  it('ignores records that are not COMPLETED, or past their retention', () => {
    const cache = new CompletedCache(5, new ManualClock(NOW));
    cache.remember(completed('busy', { status: 'IN_PROGRESS' }));
    cache.remember(completed('old', { expiresAt: NOW / 1000 - 1 }));
    cache.remember(undefined);
    expect(cache.has('busy')).toBe(false);
    expect(cache.has('old')).toBe(false);
  });

  it('drops an entry once its retention has passed by the clock', () => {
    let now = NOW;
    const cache = new CompletedCache(5, { now: () => now });
    cache.remember(completed('a'));
    expect(cache.has('a')).toBe(true);
    now += 3600 * 1000;
    expect(cache.lookup('a')).toBeUndefined();
    now = NOW;
    expect(cache.has('a')).toBe(false); // dropped, not just hidden
  });

  it('hands each lookup its own copy of the result', () => {
    const cache = new CompletedCache(5, new ManualClock(NOW));
    cache.remember(completed('a', { result: { items: [1] } }));
    const first = cache.lookup('a')?.result as { items: number[] } | undefined;
    first?.items.push(2);
    expect(first?.items).toEqual([1, 2]);
    expect(cache.lookup('a')?.result).toEqual({ items: [1] });
    cache.remember(completed('b'));
    expect(cache.lookup('b')).not.toHaveProperty('result');
  });
});
