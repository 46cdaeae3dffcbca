import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { EffectivelyOnceError } from '../../../src/engine/errors.js';
import { MAX_ITEM_BYTES } from '../../../src/engine/size.js';
import {
  completedSizeEstimate,
  encodeResult,
  errorText,
  isLive,
  MAX_LAST_ERROR_BYTES,
  recordFromWire,
  toRecord,
} from '../../../src/stores/dynamodb/records.js';

describe('toRecord', () => {
  it('keeps record attributes and drops internal ones', () => {
    const record = toRecord({ id: 'c#k', status: 'IN_PROGRESS', expiresAt: 10, attempts: 2, owner: 't', leaseUntil: 5, inflight: 'p1' });
    expect(record).toEqual({ id: 'c#k', status: 'IN_PROGRESS', expiresAt: 10, attempts: 2, owner: 't', leaseUntil: 5 });
  });

  it('rejects an item that is not an idempotency record', () => {
    expect(() => toRecord({ id: 'c#k', status: 'DONE', expiresAt: 1 })).toThrow(EffectivelyOnceError);
    expect(() => toRecord({ pk: 'x' })).toThrow(/not an idempotency record/);
  });
});

describe('recordFromWire', () => {
  it('unmarshalls a wire item and treats a missing or empty one as absent', () => {
    const wire = marshall({ id: 'c#k', status: 'COMPLETED', expiresAt: 10, attempts: 1, result: { j: '{"a":[1]}' } });
    expect(recordFromWire(wire)).toMatchObject({ status: 'COMPLETED', result: { a: [1] } });
    expect(recordFromWire(undefined)).toBeUndefined();
    expect(recordFromWire({})).toBeUndefined();
  });
});

describe('isLive', () => {
  it('is false from the second the retention ends', () => {
    const record = { id: 'c#k', status: 'COMPLETED', expiresAt: 100, attempts: 1 } as const;
    expect(isLive(record, 99_999)).toBe(true);
    expect(isLive(record, 100_000)).toBe(false);
  });
});

describe('errorText', () => {
  it('names the error and cuts by bytes without splitting a character', () => {
    expect(errorText(new TypeError('bad'))).toBe('TypeError: bad');
    expect(errorText('plain')).toBe('plain');
    const cut = errorText('é'.repeat(2000));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_LAST_ERROR_BYTES);
    expect(cut).toBe('é'.repeat(MAX_LAST_ERROR_BYTES / 2));
  });
});

describe('completedSizeEstimate', () => {
  it('is over the item limit for a result that is, and under it for a small one', () => {
    expect(completedSizeEstimate('c#k', 't', encodeResult('x'.repeat(MAX_ITEM_BYTES)))).toBeGreaterThan(MAX_ITEM_BYTES);
    expect(completedSizeEstimate('c#k', 't', encodeResult({ ok: true }))).toBeLessThan(2_000);
  });
});
