import { describe, expect, it } from 'vitest';
import { EffectivelyOnceError } from '../../../src/engine/errors.js';
import type { IdempotencyRecord } from '../../../src/engine/record.js';
import { markerText, recordFromFields, recordFromMarker } from '../../../src/stores/redis/fields.js';
import { replyFields, replyText } from '../../../src/stores/redis/connection.js';

const completed: IdempotencyRecord = {
  id: 'c#k',
  status: 'COMPLETED',
  owner: 'tok-1',
  expiresAt: 1_900_000_000,
  attempts: 2,
  payloadHash: 'h',
  completedAt: 1_899_999_000_000,
  result: { points: 3, nested: [null, 'x'] },
};

describe('Redis store hashes', () => {
  it('reads every field back with its type; numbers as numbers, the result decoded from its JSON text', () => {
    const fields = new Map([
      ['status', 'IN_PROGRESS'],
      ['owner', 'tok'],
      ['leaseUntil', '1800000000000'],
      ['expiresAt', '1800003600'],
      ['attempts', '3'],
      ['payloadHash', 'h'],
      ['messageId', 'm'],
      ['claimedAt', '1799999970000'],
      ['result', '{"a":1}'],
    ]);
    expect(recordFromFields('c#k', fields)).toStrictEqual({
      id: 'c#k',
      status: 'IN_PROGRESS',
      expiresAt: 1_800_003_600,
      attempts: 3,
      owner: 'tok',
      payloadHash: 'h',
      messageId: 'm',
      leaseUntil: 1_800_000_000_000,
      claimedAt: 1_799_999_970_000,
      result: { a: 1 },
    });
  });

  it('an empty hash is no record; one without a known status or a numeric expiresAt is an error, not a guess', () => {
    expect(recordFromFields('c#k', new Map())).toBeUndefined();
    expect(() =>
      recordFromFields(
        'c#k',
        new Map([
          ['status', 'DONE'],
          ['expiresAt', '1'],
        ]),
      ),
    ).toThrow(EffectivelyOnceError);
    expect(() =>
      recordFromFields(
        'c#k',
        new Map([
          ['status', 'COMPLETED'],
          ['expiresAt', 'soon'],
        ]),
      ),
    ).toThrow(EffectivelyOnceError);
    expect(() => recordFromFields('c#k', new Map([['status', 'COMPLETED']]))).toThrow(EffectivelyOnceError);
  });
});

describe('filter markers', () => {
  it('round-trip a record, with the header the Lua scripts read', () => {
    const text = markerText(completed);
    expect(text.split('\n')[0]).toBe('COMPLETED 1900000000 tok-1');
    expect(recordFromMarker('c#k', text)).toStrictEqual(completed);
  });

  it('ignore what is not a marker of this id', () => {
    expect(recordFromMarker('c#k', 'no header')).toBeUndefined();
    expect(recordFromMarker('c#k', 'COMPLETED 1 x\n{broken')).toBeUndefined();
    expect(recordFromMarker('c#other', markerText(completed))).toBeUndefined();
    expect(recordFromMarker('c#k', 'COMPLETED 1 x\n{"id":"c#k","status":"DONE","expiresAt":1,"attempts":1}')).toBeUndefined();
    expect(recordFromMarker('c#k', 'COMPLETED 1 x\nnull')).toBeUndefined();
  });
});

describe('replies', () => {
  it('take strings or Buffers, and flat field lists', () => {
    expect(replyText(Buffer.from('é'))).toBe('é');
    expect(replyText(null)).toBeUndefined();
    expect([...replyFields(['a', '1', Buffer.from('b'), Buffer.from('2')])]).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(replyFields(null).size).toBe(0);
  });
});
