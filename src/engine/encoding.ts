/**
 * The canonical encoding behind payload fingerprints. It is injective: two values share an encoding only when they are
 * the same value, in the sense below. Every value is a JSON array: a tag naming its kind, then strings or the encodings
 * of its parts. Built from arrays and JSON string literals only, no user value can spell another kind's tag (a map
 * `{ "$n": "5" }` is an `o` node, never an `n` node), and `JSON.stringify` escapes lone surrogates, so the text hashes
 * as UTF-8 without two strings collapsing into one.
 *
 * What "the same value" means:
 * - objects: the same own enumerable string keys (any order) with the same values; a property holding `undefined`,
 *   a function or a symbol is absent, as in JSON and in DynamoDB;
 * - arrays: the same elements in the same order; `undefined` (or a hole) is a value of its own, not `null`;
 * - numbers: the same exact decimal value, whether a number, a bigint or a `NumberValue` (`1.5` and
 *   `NumberValue('1.50')` are one number; `-0` is `0`); `NaN`, `Infinity`, `-Infinity` are numbers of their own;
 * - strings: the same code units; binary (`ArrayBuffer`, typed arrays, `Buffer`): the same bytes; `Set`, `Map`: the
 *   same members or entries, in any order;
 * - other objects with `toJSON` (a `Date`): the same `toJSON()` result, and never equal to that result itself.
 */
import { canonicalNumber, isNumberValue } from './numbers.js';

/** A JSON string literal: injective, and pure ASCII for lone surrogates. */
const quote = (s: string): string => JSON.stringify(s);
type Entry = readonly [string, string];
const byKey = (a: Entry, b: Entry): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const byEntry = (a: Entry, b: Entry): number => byKey(a, b) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

function list(tag: string, parts: readonly string[]): string {
  let out = `["${tag}"`;
  for (const part of parts) out += `,${part}`;
  return `${out}]`;
}

/** Node writers, shared with the JSON text reader so a body and its parsed value encode alike. */
export const node = {
  null: '["z"]',
  undefined: '["u"]',
  true: '["t"]',
  false: '["f"]',
  string: (s: string): string => `["s",${quote(s)}]`,
  /** A message body that is not JSON, compared as text: never equal to any JSON value. */
  text: (s: string): string => `["x",${quote(s)}]`,
  /** `canonical` as {@link canonicalNumber} writes it. */
  number: (canonical: string): string => `["n",${quote(canonical)}]`,
  array: (items: readonly string[]): string => list('a', items),
  /** Entries are `[key, encoding]`, sorted here (in place); a repeated key keeps its last value, as in `JSON.parse`. */
  object(entries: Entry[]): string {
    entries.sort(byKey);
    let out = '["o"';
    for (let i = 0; i < entries.length; i += 1) {
      const [key, value] = entries[i] as Entry;
      if (entries[i + 1]?.[0] !== key) out += `,${quote(key)},${value}`;
    }
    return `${out}]`;
  },
} as const;

/**
 * A payload already in canonical form: fingerprinted as it is, also when
 * nested in another payload. Only this library builds one (for SQS bodies).
 */
export class EncodedPayload {
  /** @param encoding - a complete encoding, as {@link canonicalEncoding} writes one. */
  constructor(readonly encoding: string) {}
}

/**
 * The injective canonical encoding of `value` (see the module comment for
 * which values count as the same).
 *
 * @throws TypeError when `value` contains itself (a cycle).
 */
export function canonicalEncoding(value: unknown): string {
  return encode(value, new Set());
}

function encode(v: unknown, ancestors: Set<object>): string {
  switch (typeof v) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return node.undefined;
    case 'boolean':
      return v ? node.true : node.false;
    case 'string':
      return node.string(v);
    case 'number':
    case 'bigint':
      return node.number(canonicalNumber(v) ?? String(v));
  }
  if (v === null) return node.null;
  if (v instanceof EncodedPayload) return v.encoding;
  if (isNumberValue(v)) return node.number(canonicalNumber(v) ?? `?${v.value}`);
  const bytes = binaryOf(v as object);
  if (bytes !== undefined) return list('b', [quote(bytes.toString('base64'))]);
  if (ancestors.has(v as object)) throw new TypeError('The payload contains itself (a cycle): it has no fingerprint.');
  ancestors.add(v as object);
  try {
    return container(v as object, (x) => encode(x, ancestors));
  } finally {
    ancestors.delete(v as object);
  }
}

function binaryOf(v: object): Buffer | undefined {
  if (v instanceof ArrayBuffer) return Buffer.from(v);
  if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return undefined;
}

/** Arrays, sets, maps and objects; `inner` encodes a part (with the cycle check). */
function container(v: object, inner: (x: unknown) => string): string {
  if (Array.isArray(v)) return node.array(Array.from(v as unknown[], inner)); // Array.from reads holes as undefined
  if (v instanceof Set) return list('S', [...new Set(Array.from(v as Set<unknown>, inner))].sort());
  if (v instanceof Map) {
    const entries = Array.from(v as Map<unknown, unknown>, ([k, x]): Entry => [inner(k), inner(x)]);
    return list('m', entries.sort(byEntry).flat());
  }
  if (v instanceof String || v instanceof Number || v instanceof Boolean) return inner(v.valueOf()); // as JSON does
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return list('j', [inner(toJSON.call(v, ''))]);
  const entries: Entry[] = [];
  for (const key of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[key];
    if (x !== undefined && typeof x !== 'function' && typeof x !== 'symbol') entries.push([key, inner(x)]);
  }
  return node.object(entries);
}
