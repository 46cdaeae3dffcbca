import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { bodyPayload, canonicalEncoding, canonicalJson, payloadHash, payloadsDiffer, sha256 } from '../../../src/engine/hashing.js';

describe('sha256', () => {
  it('matches the known digest of "abc"', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });

  it('renders undefined as a string rather than failing', () => {
    expect(canonicalJson(undefined)).toBe('undefined');
  });

  it('writes a NumberValue as a number, and a plain map with a "value" string as the map it is', () => {
    expect(canonicalJson({ n: NumberValue.from('12345678901234567890') })).toBe('{"n":{"$n":"12345678901234567890"}}');
    expect(canonicalJson({ n: { value: '2' } })).toBe('{"n":{"value":"2"}}');
  });
});

describe('canonicalEncoding', () => {
  it('ignores key order at every level and keeps array order', () => {
    expect(canonicalEncoding({ b: 1, a: { d: [2, 1], c: null } })).toBe(canonicalEncoding({ a: { c: null, d: [2, 1] }, b: 1 }));
    expect(canonicalEncoding([1, 2])).not.toBe(canonicalEncoding([2, 1]));
  });

  it('no plain map can spell a number, a binary or a string: each kind has its own tag', () => {
    const values: unknown[] = [
      5,
      '5',
      5n,
      NumberValue.from('5'),
      { value: '5' },
      { $n: '5' },
      ['n', '5'],
      { n: '5' },
      Buffer.from('5'),
      { $b: Buffer.from('5').toString('base64') },
      'NTU=',
      [5],
      new Set([5]),
      null,
      undefined,
      'null',
      true,
      'true',
    ];
    const encodings = values.map((v) => canonicalEncoding(v));
    // 5, 5n and NumberValue('5') are one number (DynamoDB has one number type); everything else differs.
    expect(new Set(encodings).size).toBe(values.length - 2);
    expect(canonicalEncoding(5n)).toBe(canonicalEncoding(5));
    expect(canonicalEncoding(NumberValue.from('5'))).toBe(canonicalEncoding(5));
  });

  it('compares numbers by exact decimal value, whatever their form', () => {
    expect(canonicalEncoding(NumberValue.from('1.50'))).toBe(canonicalEncoding(1.5));
    expect(canonicalEncoding(1e21)).toBe(canonicalEncoding(10n ** 21n));
    expect(canonicalEncoding(-0)).toBe(canonicalEncoding(0));
    expect(canonicalEncoding(NumberValue.from('12345678901234567891'))).not.toBe(canonicalEncoding(12345678901234567890n));
    expect(canonicalEncoding(Number.NaN)).not.toBe(canonicalEncoding(null));
    expect(canonicalEncoding(Number.POSITIVE_INFINITY)).not.toBe(canonicalEncoding(Number.NEGATIVE_INFINITY));
  });

  it('treats undefined properties as absent, and undefined in an array as a value of its own', () => {
    expect(canonicalEncoding({ a: 1, b: undefined })).toBe(canonicalEncoding({ a: 1 }));
    expect(canonicalEncoding([undefined])).not.toBe(canonicalEncoding([null]));
    expect(canonicalEncoding([undefined])).not.toBe(canonicalEncoding([]));
  });

  it('compares binary by bytes, sets as sets, maps by entries, and objects with toJSON by what it returns', () => {
    expect(canonicalEncoding(new Uint8Array([1, 2]))).toBe(canonicalEncoding(Buffer.from([1, 2])));
    expect(canonicalEncoding(new Uint8Array([1, 2]))).not.toBe(canonicalEncoding([1, 2]));
    expect(canonicalEncoding(new Set(['a', 'b']))).toBe(canonicalEncoding(new Set(['b', 'a'])));
    expect(canonicalEncoding(new Set(['a', 'b']))).not.toBe(canonicalEncoding(['a', 'b']));
    expect(canonicalEncoding(new Map([['a', 1]]))).not.toBe(canonicalEncoding(new Map([['a', 2]])));
    expect(canonicalEncoding(new Date(0))).toBe(canonicalEncoding(new Date(0)));
    expect(canonicalEncoding(new Date(0))).not.toBe(canonicalEncoding(new Date(1)));
    expect(canonicalEncoding(new Date(0))).not.toBe(canonicalEncoding(new Date(0).toISOString()));
  });

  it('refuses a cycle with a TypeError', () => {
    const a: Record<string, unknown> = {};
    a['self'] = a;
    expect(() => canonicalEncoding(a)).toThrow(TypeError);
    const shared = { x: 1 };
    expect(() => canonicalEncoding([shared, shared])).not.toThrow(); // shared, not cyclic
  });
});

describe('bodyPayload (the SQS default)', () => {
  it('a JSON body is its JSON value: key order, spacing and number spelling do not count', () => {
    expect(payloadHash(bodyPayload('{"a":1,"b":[true,null]}'))).toBe(payloadHash(bodyPayload(' { "b" : [ true , null ] , "a" : 1.0 } ')));
    expect(payloadHash(bodyPayload('{"a":1,"b":[true,null]}'))).toBe(payloadHash({ b: [true, null], a: 1 }));
    expect(payloadHash(bodyPayload('5'))).toBe(payloadHash(bodyPayload(' 5 ')));
    expect(payloadHash(bodyPayload('5'))).toBe(payloadHash(5));
  });

  it('every digit of a JSON number counts, and every change of content', () => {
    expect(payloadHash(bodyPayload('{"id":12345678901234567890}'))).not.toBe(payloadHash(bodyPayload('{"id":12345678901234567891}')));
    expect(payloadHash(bodyPayload('{"a":1}'))).not.toBe(payloadHash(bodyPayload('{"a":"1"}')));
    expect(payloadHash(bodyPayload('{"a":1}'))).not.toBe(payloadHash(bodyPayload('{"a":1,"b":null}')));
  });

  it('a body that is not JSON is its text: never the same as a JSON value, nor as that text returned by a payload function', () => {
    expect(payloadHash(bodyPayload('abc'))).toBe(payloadHash(bodyPayload('abc')));
    expect(payloadHash(bodyPayload('abc'))).not.toBe(payloadHash(bodyPayload('"abc"')));
    expect(payloadHash(bodyPayload('abc'))).not.toBe(payloadHash(bodyPayload('abc ')));
    expect(payloadHash(bodyPayload('"5"'))).not.toBe(payloadHash(bodyPayload('5')));
    expect(payloadHash(bodyPayload('abc'))).not.toBe(payloadHash('abc'));
    expect(payloadHash(bodyPayload('"abc"'))).toBe(payloadHash('abc'));
    expect(payloadHash(bodyPayload('{"a":1'))).not.toBe(payloadHash(bodyPayload('{"a":1}')));
  });
});

describe('payloadHash', () => {
  it('is the same for payloads that differ only in key order', () => {
    expect(payloadHash({ a: 1, b: { c: 2, d: 3 } })).toBe(payloadHash({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('differs when a value differs', () => {
    expect(payloadHash({ a: 1 })).not.toBe(payloadHash({ a: 2 }));
  });

  it('a plain map is never taken for a number or for binary', () => {
    expect(payloadHash({ value: '5' })).not.toBe(payloadHash({ $n: '5' }));
    expect(payloadHash({ x: { value: '5' } })).not.toBe(payloadHash({ x: 5 }));
    expect(payloadHash({ x: { $n: '5' } })).not.toBe(payloadHash({ x: 5n }));
    expect(payloadHash({ x: { $b: 'AQ==' } })).not.toBe(payloadHash({ x: Buffer.from([1]) }));
  });

  it('a string is a string value: the JSON text of an object is not that object', () => {
    expect(payloadHash('{"a":1}')).toBe(payloadHash('{"a":1}'));
    expect(payloadHash('{"a":1}')).not.toBe(payloadHash({ a: 1 }));
    expect(payloadHash('{"a":1}')).not.toBe(payloadHash('{"a": 1}'));
  });

  it('has a versioned form that a 0.1.0 hash (64 hex digits) can never have', () => {
    expect(payloadHash({ a: 1 })).toMatch(/^v2:[0-9a-f]{64}$/);
    expect(payloadHash({ a: 1 })).not.toBe(sha256('{"a":1}'));
  });
});

describe('payloadsDiffer', () => {
  const mine = payloadHash({ a: 1 });

  it('flags two current hashes that differ, and only those', () => {
    expect(payloadsDiffer(mine, payloadHash({ a: 2 }))).toBe(true);
    expect(payloadsDiffer(mine, payloadHash({ a: 1 }))).toBe(false);
    expect(payloadsDiffer(mine, undefined)).toBe(false);
    expect(payloadsDiffer(undefined, mine)).toBe(false);
  });

  it('never compares a current hash with one written by 0.1.0 (another encoding): no check rather than a false mismatch', () => {
    expect(payloadsDiffer(mine, sha256('{"a":1}'))).toBe(false);
    expect(payloadsDiffer(mine, sha256('{"a":2}'))).toBe(false);
    expect(payloadsDiffer(sha256('{"a":1}'), mine)).toBe(false);
  });

  it('compares hashes of one form with each other (0.1.0 with 0.1.0, or a custom store’s own strings)', () => {
    expect(payloadsDiffer(sha256('x'), sha256('y'))).toBe(true);
    expect(payloadsDiffer('h-1', 'h-2')).toBe(true);
    expect(payloadsDiffer('h-1', 'h-1')).toBe(false);
  });
});
