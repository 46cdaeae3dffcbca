/**
 * Properties of the payload encoding (src/engine/encoding.ts, json-text.ts) and
 * of `payloadHash`: two values share an encoding, and a hash, exactly when they
 * are the same value; the same value spelt otherwise (key order, number form,
 * binary container, set order, undefined properties, JSON spacing) shares
 * one. "The same value" is decided here by a comparator written apart from
 * the encoder (`equivalent`), with exact decimals done in BigInt arithmetic.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyPayload, canonicalEncoding, payloadHash } from '../../src/engine/hashing.js';
import { encodeJsonText } from '../../src/engine/json-text.js';
import { seeded } from './seed.js';

// ---------------------------------------------------------------- the model

type Kind = 'absent' | 'null' | 'boolean' | 'string' | 'number' | 'binary' | 'set' | 'array' | 'object';

function kindOf(v: unknown): Kind {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return 'absent';
  if (v === null) return 'null';
  if (typeof v === 'boolean' || typeof v === 'string') return typeof v as Kind;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof NumberValue) return 'number';
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return 'binary';
  if (v instanceof Set) return 'set';
  return Array.isArray(v) ? 'array' : 'object';
}

/** A number's exact decimal value as `mantissa × 10^exponent`, mantissa not divisible by 10; or its non-finite name. */
function decimal(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  const text = v instanceof NumberValue ? v.value : String(v);
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (m === null) throw new Error(`not a decimal: ${text}`);
  let mantissa = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0');
  let exponent = BigInt(m[4] ?? '0') - BigInt((m[3] ?? '').length);
  if (mantissa === 0n) return '0';
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1n;
  }
  return `${m[1] === '-' ? -mantissa : mantissa}:${exponent}`;
}

function bytes(v: ArrayBuffer | ArrayBufferView): Buffer {
  return v instanceof ArrayBuffer ? Buffer.from(v) : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function presentKeys(o: object): string[] {
  return Object.keys(o).filter((k) => kindOf((o as Record<string, unknown>)[k]) !== 'absent');
}

/** The same value, as documented in src/engine/encoding.ts. */
function equivalent(a: unknown, b: unknown): boolean {
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  switch (kind) {
    case 'absent':
    case 'null':
      return true;
    case 'boolean':
    case 'string':
      return a === b;
    case 'number':
      return decimal(a) === decimal(b);
    case 'binary':
      return bytes(a as ArrayBuffer).equals(bytes(b as ArrayBuffer));
    case 'set': {
      const [x, y] = [[...(a as Set<unknown>)], [...(b as Set<unknown>)]];
      return x.every((m) => y.some((n) => equivalent(m, n))) && y.every((n) => x.some((m) => equivalent(m, n)));
    }
    case 'array': {
      const [x, y] = [a as unknown[], b as unknown[]];
      return x.length === y.length && Array.from(x).every((m, i) => equivalent(m, y[i]));
    }
    case 'object': {
      const [x, y] = [a as Record<string, unknown>, b as Record<string, unknown>];
      const keys = presentKeys(x);
      return keys.length === presentKeys(y).length && keys.every((k) => Object.hasOwn(y, k) && equivalent(x[k], y[k]));
    }
  }
}

// ---------------------------------------------------------------- values

/** Few distinct texts, so that collisions between kinds would be tried often. */
const tricky = fc.constantFrom('5', '2', '', 'abc', 'null', 'true', 'NQ==', 'AQ==', '$n', 'value', '["n","5e0"]', 'x\ud800');
const text = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 6 }));
const decimalText = fc
  .tuple(
    fc.constantFrom('', '-', '+'),
    fc.stringMatching(/^\d{1,22}$/),
    fc.option(fc.stringMatching(/^\d{0,4}$/)),
    fc.option(fc.integer({ min: -30, max: 30 })),
  )
  .map(([sign, int, frac, exp]) => `${sign}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `e${exp}`}`);
const number = fc.oneof(
  fc.integer({ min: -12, max: 12 }),
  fc.double(),
  fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }),
  fc.bigInt({ min: -12n, max: 12n }),
  decimalText.map((t) => NumberValue.from(t)),
);
const binary = fc.tuple(fc.uint8Array({ maxLength: 3 }), fc.constantFrom('buffer', 'uint8', 'arraybuffer', 'dataview')).map(([b, form]) => {
  const copy = Uint8Array.from(b);
  if (form === 'buffer') return Buffer.from(copy);
  if (form === 'arraybuffer') return copy.buffer;
  return form === 'dataview' ? new DataView(copy.buffer) : copy;
});
const leaf = fc.oneof(fc.constant(null), fc.constant(undefined), fc.boolean(), text, number, binary);
/** Plain maps shaped like the special forms an encoding might use or a reader might sniff. */
const lookalike = fc
  .tuple(fc.constantFrom('value', '$n', '$b', 'N', 'B'), fc.oneof(decimalText, fc.constantFrom('5', '2', 'AQ==', 'NQ==')))
  .map(([k, t]) => ({ [k]: t }));
const key = fc.oneof(fc.constantFrom('value', '$n', '$b', 'n', 'a', '__proto__', '0'), fc.string({ maxLength: 3 }));

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    lookalike,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 3, selector: ([k]) => k }).map((e) => Object.fromEntries(e)),
    fc.array(fc.oneof(text, number), { maxLength: 3 }).map((members) => new Set(members)),
  ),
}));

/** The same value spelt otherwise: keys reordered, numbers and binary in another form, sets reordered. */
function respell(v: unknown, pick: () => number): unknown {
  const kind = kindOf(v);
  if (kind === 'number') return respellNumber(v, pick);
  if (kind === 'binary') return [Buffer.from(bytes(v as ArrayBuffer)), Uint8Array.from(bytes(v as ArrayBuffer))][pick() % 2];
  if (kind === 'set') return new Set(shuffle([...(v as Set<unknown>)], pick).map((m) => respell(m, pick)));
  if (kind === 'array') return Array.from(v as unknown[], (m) => respell(m, pick));
  if (kind !== 'object') return v;
  const entries = shuffle(Object.entries(v as object), pick).map(([k, m]) => [k, respell(m, pick)] as const);
  if (pick() % 3 === 0) entries.push(['added-undefined', undefined]);
  return Object.fromEntries(entries);
}

function respellNumber(v: unknown, pick: () => number): unknown {
  const d = decimal(v);
  if (!d.includes(':')) return v; // NaN, ±Infinity and 0 have one spelling each
  const [mantissa = '', exponent = ''] = d.split(':');
  const zeros = pick() % 3;
  const spelt = `${mantissa}${'0'.repeat(zeros)}e${BigInt(exponent) - BigInt(zeros)}`;
  const asBigInt = BigInt(exponent) >= 0n ? BigInt(mantissa) * 10n ** BigInt(exponent) : undefined;
  const forms: unknown[] = [NumberValue.from(spelt)];
  if (asBigInt !== undefined) forms.push(asBigInt);
  if (String(Number(spelt)) !== 'NaN' && decimal(Number(spelt)) === d) forms.push(Number(spelt));
  return forms[pick() % forms.length];
}

function shuffle<T>(items: T[], pick: () => number): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = pick() % (i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

const picker = fc.array(fc.nat(1000), { minLength: 1, maxLength: 16 }).map((seq) => {
  let i = 0;
  return () => seq[i++ % seq.length] as number;
});

// ---------------------------------------------------------------- properties

describe('canonicalEncoding and payloadHash', () => {
  it('two values share an encoding, and a hash, exactly when they are the same value', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const same = canonicalEncoding(a) === canonicalEncoding(b);
        expect(same).toBe(equivalent(a, b));
        expect(payloadHash(a) === payloadHash(b)).toBe(same);
      }),
      seeded(1500),
    );
  });

  it('a value spelt otherwise (key order, number form, binary form, set order, undefined properties) shares its encoding', () => {
    fc.assert(
      fc.property(value, picker, (a, pick) => {
        const b = respell(a, pick);
        expect(equivalent(a, b)).toBe(true); // the model agrees the spelling is the same value
        expect(canonicalEncoding(b)).toBe(canonicalEncoding(a));
        expect(payloadHash(b)).toBe(payloadHash(a));
      }),
      seeded(800),
    );
  });

  it('a map spelling a number, a binary or a string in any form known to DynamoDB clients or to 0.1.0 is never that value', () => {
    const special = fc.oneof(number, binary, text);
    fc.assert(
      fc.property(special, (s) => {
        const kind = kindOf(s);
        const t =
          kind === 'number'
            ? s instanceof NumberValue
              ? s.value
              : String(s)
            : kind === 'binary'
              ? bytes(s as ArrayBuffer).toString('base64')
              : String(s);
        const maps = [{ value: t }, { $n: t }, { $b: t }, { N: t }, { B: t }, { S: t }, { n: t }];
        for (const m of maps) expect(canonicalEncoding(m)).not.toBe(canonicalEncoding(s));
      }),
      seeded(300),
    );
  });

  it('a plain map never shares an encoding with a number, a binary or a set, whatever its keys and values', () => {
    const map = fc.uniqueArray(fc.tuple(key, leaf), { maxLength: 2, selector: ([k]) => k }).map((e) => Object.fromEntries(e) as object);
    const special = fc.oneof(
      number,
      binary,
      fc.array(fc.oneof(text, number), { maxLength: 2 }).map((m) => new Set(m)),
    );
    fc.assert(
      fc.property(map, special, (m, s) => {
        expect(canonicalEncoding(m)).not.toBe(canonicalEncoding(s));
      }),
      seeded(500),
    );
  });
});

describe('JSON text (the SQS default payload)', () => {
  /** JSON text of `v` with its object keys in another order and other spacing. */
  const reserialised = fc.tuple(fc.jsonValue(), picker, fc.constantFrom(undefined, 0, 1, '\t', ' \n ')).map(([v, pick, space]) => {
    const shuffled = JSON.parse(JSON.stringify(v), (_k, x: unknown) =>
      x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(shuffle(Object.entries(x), pick)) : x,
    ) as unknown;
    return { v, text: `${space === ' \n ' ? ' ' : ''}${JSON.stringify(shuffled, null, space)}\n` };
  });

  it('a JSON body encodes as the value JSON.parse gives, whatever its key order and spacing', () => {
    fc.assert(
      fc.property(reserialised, ({ v, text: body }) => {
        expect(encodeJsonText(body)).toBe(canonicalEncoding(v));
        expect(payloadHash(bodyPayload(body))).toBe(payloadHash(bodyPayload(JSON.stringify(v))));
      }),
      seeded(500),
    );
  });

  it('accepts exactly the texts JSON.parse accepts', () => {
    const alphabet = fc.constantFrom(...'{}[]":,.-+0123456789eEtrufalsn \t\n\\/bu'.split(''), 'true', 'null', '"a"', '\u0001', '\ud800');
    const jsonish = fc.string({ unit: alphabet, maxLength: 14 });
    const mutated = fc.tuple(fc.jsonValue({ maxDepth: 2 }), fc.nat(), alphabet, fc.boolean()).map(([v, at, c, insert]) => {
      const t = JSON.stringify(v);
      const i = at % (t.length + 1);
      return insert ? t.slice(0, i) + c + t.slice(i) : t.slice(0, i) + t.slice(i + 1);
    });
    fc.assert(
      fc.property(fc.oneof(jsonish, mutated), (t) => {
        let parses = true;
        try {
          JSON.parse(t);
        } catch {
          parses = false;
        }
        expect(encodeJsonText(t) !== undefined).toBe(parses);
      }),
      seeded(2000),
    );
  });

  it('every digit of a number counts, also where JSON.parse rounds two numbers to one double', () => {
    // Neighbours above 2^53: most pairs are one double for JSON.parse.
    const big = fc.bigInt({ min: 2n ** 53n, max: 10n ** 25n });
    fc.assert(
      fc.property(big, fc.bigInt({ min: 0n, max: 3n }), fc.constantFrom('', '.0', 'e0', '0e-1'), (x, delta, suffix) => {
        const y = x + delta;
        const same = encodeJsonText(`{"n":${x}${suffix}}`) === encodeJsonText(`{"n":${y}}`);
        expect(same).toBe(delta === 0n);
      }),
      seeded(300),
    );
  });

  it('a body that is not JSON never shares a hash with a JSON body or with a string payload', () => {
    const notJson = fc.string({ maxLength: 8 }).filter((t) => encodeJsonText(t) === undefined);
    fc.assert(
      fc.property(notJson, fc.jsonValue({ maxDepth: 2 }), (t, v) => {
        const h = payloadHash(bodyPayload(t));
        expect(h).not.toBe(payloadHash(bodyPayload(JSON.stringify(v))));
        expect(h).not.toBe(payloadHash(bodyPayload(JSON.stringify(t)))); // the JSON string of that text
        expect(h).not.toBe(payloadHash(t));
      }),
      seeded(500),
    );
  });
});
