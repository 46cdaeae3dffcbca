/**
 * Properties of business keys (src/engine/keys.ts): which keys are accepted,
 * and that two accepted keys that differ never share a record, even after
 * DynamoDB (UTF-8) or SHA-256 (over UTF-8) has seen them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MissingKeyError } from '../../src/engine/errors.js';
import { MAX_KEY_BYTES, normalizeKey, recordId } from '../../src/engine/keys.js';
import { seeded } from './seed.js';

/** Any UTF-16 string, lone surrogates included, with surrogates frequent enough to matter. */
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }),
  fc.integer({ min: 0xd800, max: 0xdfff }),
  fc.constantFrom(0, 0x20, 0x301, 0x200f, 0xfeff),
);
const anyString = fc.string({ unit: codeUnit.map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 });
/** Well-formed strings: any code point, astral ones included. */
const wellFormed = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });

/** What DynamoDB stores and SHA-256 hashes: the UTF-8 bytes. */
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const survivesUtf8 = (s: string) => utf8(s).toString('utf8') === s;

const accepted = (raw: string): boolean => {
  try {
    normalizeKey(raw);
    return true;
  } catch (err) {
    expect(err).toBeInstanceOf(MissingKeyError);
    return false;
  }
};

describe('normalizeKey', () => {
  it('accepts a non-empty string exactly when UTF-8 keeps it intact (no lone surrogate), and returns it unchanged', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        expect(accepted(s)).toBe(survivesUtf8(s));
        if (survivesUtf8(s)) expect(normalizeKey(s)).toBe(s); // no normalisation, no trimming
      }),
      seeded(500),
    );
  });

  it('accepts every well-formed string as it is (NFC and NFD, marks, spaces and NUL are kept apart)', () => {
    fc.assert(
      fc.property(wellFormed, (s) => {
        expect(normalizeKey(s)).toBe(s);
      }),
      seeded(300),
    );
  });
});

describe('recordId', () => {
  it('two different accepted keys never share a record, raw or hashed', () => {
    // Pairs that differ by one code unit are the ones an encoding could merge.
    const pair = fc.tuple(anyString, fc.nat(11), codeUnit).map(([a, at, unit]) => {
      const i = at % a.length;
      return [a, a.slice(0, i) + String.fromCharCode(unit) + a.slice(i + 1)] as const;
    });
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(anyString, anyString)), ([a, b]) => {
        fc.pre(a !== b && accepted(a) && accepted(b));
        expect(utf8(recordId('c', a, false)).equals(utf8(recordId('c', b, false)))).toBe(false);
        expect(recordId('c', a, true)).not.toBe(recordId('c', b, true));
      }),
      seeded(500),
    );
  });

  it('an unhashed key is refused exactly when it is over the limit in UTF-8 bytes; a hashed id is always short', () => {
    const around = fc.integer({ min: MAX_KEY_BYTES - 8, max: MAX_KEY_BYTES + 8 });
    // Keys near the limit, made of one- to four-byte characters, so the UTF-16 length and the byte length differ.
    const nearLimit = fc
      .tuple(around, fc.constantFrom('k', 'é', '€', '😀'))
      .map(([bytes, ch]) => ch.repeat(Math.ceil(bytes / utf8(ch).length)));
    fc.assert(
      fc.property(nearLimit, fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 64 }), (key, consumer) => {
        const over = utf8(key).length > MAX_KEY_BYTES;
        if (over) expect(() => recordId(consumer, key, false)).toThrow(MissingKeyError);
        else expect(recordId(consumer, key, false)).toBe(`${consumer}#${key}`);
        // DynamoDB's partition key limit is 2048 bytes: a hashed id is consumer + '#' + 64 hex digits.
        expect(utf8(recordId(consumer, key, true)).length).toBe(utf8(consumer).length + 65);
      }),
      seeded(300),
    );
  });
});
