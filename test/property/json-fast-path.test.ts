/**
 * The fast path of `bodyPayload` (JSON.parse + canonicalEncoding, taken only
 * when no number in the text can lose precision) must give exactly what the
 * exact reader (`encodeJsonText`) gives, for every text: JSON with numbers of
 * every form and size, spacing, escapes, repeated keys, and text that is not
 * JSON at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJsonText, encodeJsonTextFast } from '../../src/engine/json-text.js';
import { seeded } from './seed.js';

/** A number token in any JSON spelling: sign, leading digits, fraction, exponent of any size. */
const numberToken = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9]\d{0,24}$/)),
    fc.option(fc.stringMatching(/^\d{1,22}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^\d{1,4}$/)), { nil: undefined }),
  )
  .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`);

const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n');

/** JSON text built token by token, so numbers keep their spelling (JSON.stringify would normalise them). */
const jsonText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberToken,
    fc.string().map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', 'null', '"a\\u00e9\\n"', '"1e400"', '"12345678901234567890"'),
    fc.array(tie('value') as fc.Arbitrary<string>, { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .array(fc.tuple(fc.constantFrom('a', 'b', 'amount', '__proto__', 'é', ''), tie('value') as fc.Arbitrary<string>), { maxLength: 4 })
      .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value;

describe('bodyPayload fast path', () => {
  it('agrees with the exact reader on JSON text with numbers of every form', () => {
    fc.assert(
      fc.property(jsonText, space, space, (text, before, after) => {
        const body = `${before}${text}${after}`;
        expect(encodeJsonTextFast(body)).toBe(encodeJsonText(body));
      }),
      seeded(2000),
    );
  });

  it('agrees with the exact reader on text that is not JSON (or only almost)', () => {
    const almost = fc.oneof(
      fc.string(),
      jsonText.map((t) => `${t},`),
      jsonText.map((t) => t.slice(0, -1)),
      fc.constantFrom('', ' ', 'NaN', 'Infinity', '01', '1.', '.5', '+1', '{"a":1,}', "{'a':1}", '"\u0001"', '[1]]', 'abc'),
    );
    fc.assert(
      fc.property(almost, (body) => {
        expect(encodeJsonTextFast(body)).toBe(encodeJsonText(body));
      }),
      seeded(2000),
    );
  });

  it('keeps every digit of a number JSON.parse would round', () => {
    const exact = encodeJsonText('{"n":12345678901234567891}');
    expect(encodeJsonTextFast('{"n":12345678901234567891}')).toBe(exact);
    expect(encodeJsonTextFast('{"n":12345678901234567891}')).not.toBe(encodeJsonText('{"n":12345678901234567000}'));
    expect(encodeJsonTextFast('[1.00000000000000001]')).not.toBe(encodeJsonText('[1]'));
    expect(encodeJsonTextFast('[1e400]')).toBe(encodeJsonText('[1e400]'));
  });
});
