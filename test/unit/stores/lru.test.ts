import { describe, expect, it } from 'vitest';
import { LruCache } from '../../../src/stores/dynamodb/lru.js';

describe('LruCache', () => {
  it('evicts the least recently written entry beyond maxEntries', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.has('a')).toBe(false);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('a read makes an entry the most recent', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
  });

  it('overwriting a key refreshes it without growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(10);
    expect(cache.has('b')).toBe(false);
  });

  it('has() does not change recency', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.has('a');
    cache.set('c', 3);
    expect(cache.has('a')).toBe(false);
  });

  it('keeps falsy values distinct from misses', () => {
    const cache = new LruCache<string, number | undefined>(2);
    cache.set('zero', 0);
    expect(cache.get('zero')).toBe(0);
    expect(cache.get('missing')).toBeUndefined();
  });

  it('deletes and clears', () => {
    const cache = new LruCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.delete('a')).toBe(true);
    expect(cache.delete('a')).toBe(false);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects maxEntries %s', (max) => {
    expect(() => new LruCache(max)).toThrow(RangeError);
  });
});
