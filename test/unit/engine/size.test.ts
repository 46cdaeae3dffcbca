import { describe, expect, it } from 'vitest';
import { itemSize, MAX_ITEM_BYTES, MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES, valueSize } from '../../../src/engine/size.js';

describe('valueSize', () => {
  it('counts strings in UTF-8 bytes', () => {
    expect(valueSize('abc')).toBe(3);
    expect(valueSize('é')).toBe(2);
  });

  it('counts numbers by significant digits', () => {
    expect(valueSize(7)).toBe(2);
    expect(valueSize(1234)).toBe(3);
  });

  it('counts null, booleans and binary', () => {
    expect(valueSize(null)).toBe(1);
    expect(valueSize(true)).toBe(1);
    expect(valueSize(new Uint8Array(10))).toBe(10);
  });

  it('adds overhead for lists and maps', () => {
    expect(valueSize(['a', 'b'])).toBe(3 + 2 + 2);
    expect(valueSize({ k: 'v' })).toBe(3 + 1 + 1 + 1);
  });
});

describe('itemSize', () => {
  it('adds attribute name bytes to value bytes and skips undefined', () => {
    expect(itemSize({ id: 'abc', n: 7, gone: undefined })).toBe(2 + 3 + 1 + 2);
  });

  it('grows with the content, so a large string crosses the item limit', () => {
    expect(itemSize({ r: 'x'.repeat(MAX_ITEM_BYTES) })).toBeGreaterThan(MAX_ITEM_BYTES);
  });
});

describe('limits', () => {
  it("are DynamoDB's documented limits", () => {
    expect(MAX_ITEM_BYTES).toBe(409_600);
    expect(MAX_TRANSACTION_BYTES).toBe(4_194_304);
    expect(MAX_TRANSACTION_ACTIONS).toBe(100);
  });
});
