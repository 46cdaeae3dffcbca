import { describe, expect, it } from 'vitest';
import { InvalidRecordError, KeyTooLongError, MissingKeyError } from '../../../src/engine/errors.js';
import { sha256 } from '../../../src/engine/hashing.js';
import { MAX_KEY_BYTES, normalizeKey, recordId } from '../../../src/engine/keys.js';

describe('normalizeKey', () => {
  it('accepts strings and finite numbers', () => {
    expect(normalizeKey('order-1')).toBe('order-1');
    expect(normalizeKey(42)).toBe('42');
    expect(normalizeKey(0)).toBe('0');
  });

  it.each([undefined, null, '', {}, [], true, Number.NaN, Number.POSITIVE_INFINITY])('rejects %s with MissingKeyError', (raw) => {
    expect(() => normalizeKey(raw)).toThrow(MissingKeyError);
  });

  it('rejects lone surrogates, which UTF-8 would turn into one shared U+FFFD', () => {
    expect(sha256('x\ud800')).toBe(sha256('x\udbff')); // why: two keys, one record
    for (const raw of ['x\ud800', 'x\udbff', '\udc00x', '\ude00\ud83d']) expect(() => normalizeKey(raw)).toThrow(/lone surrogate/);
    expect(normalizeKey('\ud83d\ude00')).toBe('😀'); // a pair is fine
  });
});

describe('recordId', () => {
  it('is consumer#key, or consumer#sha256(key) when hashing', () => {
    expect(recordId('payments', 'o-1', false)).toBe('payments#o-1');
    expect(recordId('payments', 'o-1', true)).toBe(`payments#${sha256('o-1')}`);
    expect(recordId('payments', 'o-1', true)).not.toContain('o-1');
  });

  it('rejects unhashed keys longer than the limit in bytes (multi-byte characters count); hashing lifts the limit', () => {
    expect(recordId('c', 'a'.repeat(MAX_KEY_BYTES), false)).toBe(`c#${'a'.repeat(MAX_KEY_BYTES)}`);
    const long = 'é'.repeat(MAX_KEY_BYTES / 2 + 1);
    expect(() => recordId('c', long, false)).toThrow(MissingKeyError);
    expect(() => recordId('c', long, false)).toThrow(/longer than/);
    expect(recordId('c', long, true)).toBe(`c#${sha256(long)}`);
  });

  it('throws KeyTooLongError for a key too long, still a MissingKeyError (caught as before) and an InvalidRecordError', () => {
    const long = 'k'.repeat(MAX_KEY_BYTES + 1);
    let thrown: unknown;
    try {
      recordId('c', long, false);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(KeyTooLongError);
    expect(thrown).toBeInstanceOf(MissingKeyError);
    expect(thrown).toBeInstanceOf(InvalidRecordError);
    expect(thrown).toMatchObject({ name: 'KeyTooLongError', key: long.slice(0, 64) });
    // A key that is missing is not "too long".
    expect(() => normalizeKey('')).not.toThrow(KeyTooLongError);
  });
});
