import { describe, expect, it } from 'vitest';
import { canonicalJson, payloadHash, sha256 } from '../../../src/core/hashing.js';

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
});

describe('payloadHash', () => {
  it('is the same for payloads that differ only in key order', () => {
    expect(payloadHash({ a: 1, b: { c: 2, d: 3 } })).toBe(payloadHash({ b: { d: 3, c: 2 }, a: 1 }));
  });

  it('differs when a value differs', () => {
    expect(payloadHash({ a: 1 })).not.toBe(payloadHash({ a: 2 }));
  });

  it('hashes strings as they are (a JSON body is not re-serialised)', () => {
    expect(payloadHash('{"a":1}')).toBe(sha256('{"a":1}'));
  });
});
