/**
 * Reads JSON text straight into the canonical encoding (encoding.ts), without building the value: numbers keep every
 * digit (`JSON.parse` would round `12345678901234567891`), and deep nesting cannot overflow the stack (the reader keeps
 * its own). It accepts exactly what `JSON.parse` accepts; a repeated key keeps its last value, as there.
 */
import { canonicalNumber } from './numbers.js';
import { node } from './encoding.js';

const WHITESPACE = /[ \t\n\r]*/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = [
  ['true', node.true],
  ['false', node.false],
  ['null', node.null],
] as const;

/** Thrown inside the reader only: the text is not JSON. */
const NOT_JSON = Symbol('not JSON');

type Frame = { readonly items: string[] } | { readonly entries: [string, string][]; key: string };

/** The canonical encoding of the JSON value `text` holds, or `undefined` when `text` is not JSON. */
export function encodeJsonText(text: string): string | undefined {
  // The reader's steps close over its position (locals, not an object's members: what a minifier can shorten).
  let at = 0;

  const skipWhitespace = (): void => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(text);
    at = WHITESPACE.lastIndex;
  };

  /** Consumes `char` (after whitespace) when it is next. */
  const eat = (char: string): boolean => {
    skipWhitespace();
    if (text[at] !== char) return false;
    at += 1;
    return true;
  };

  const expect = (char: string): void => {
    if (!eat(char)) throw NOT_JSON;
  };

  const token = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (m === null) throw NOT_JSON;
    at = pattern.lastIndex;
    return m[0];
  };

  /** A string's value; the token was checked against the grammar, so `JSON.parse` only decodes escapes. */
  const string = (): string => {
    skipWhitespace();
    const quoted = token(STRING);
    return quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
  };

  /** An object key and the colon after it. */
  const key = (): string => {
    const name = string();
    expect(':');
    return name;
  };

  /** The encoding of a string, number or literal at the current position. */
  const scalar = (): string => {
    skipWhitespace();
    const c = text[at];
    if (c === '"') return node.string(string());
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return node.number(canonicalNumber(token(NUMBER)) ?? '');
    for (const [word, encoding] of LITERALS) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return encoding;
      }
    }
    throw NOT_JSON;
  };

  const read = (): string => {
    const stack: Frame[] = [];
    for (;;) {
      let done: string;
      if (eat('[')) {
        if (!eat(']')) {
          stack.push({ items: [] });
          continue;
        }
        done = node.array([]);
      } else if (eat('{')) {
        if (!eat('}')) {
          stack.push({ entries: [], key: key() });
          continue;
        }
        done = node.object([]);
      } else {
        done = scalar();
      }
      // Close every container this value completes; stop at a comma (another value follows).
      for (let top = stack.at(-1); ; top = stack.at(-1)) {
        if (top === undefined) {
          skipWhitespace();
          if (at !== text.length) throw NOT_JSON;
          return done;
        }
        if ('items' in top) {
          top.items.push(done);
          if (eat(',')) break;
          expect(']');
          done = node.array(top.items);
        } else {
          top.entries.push([top.key, done]);
          if (eat(',')) {
            top.key = key();
            break;
          }
          expect('}');
          done = node.object(top.entries);
        }
        stack.pop();
      }
    }
  };

  try {
    return read();
  } catch (err) {
    if (err === NOT_JSON) return undefined;
    throw err;
  }
}

/**
 * A number token `JSON.parse` might not keep exactly: more than 15 digits (a dot may sit between them) or an exponent
 * of 3 digits or more. Otherwise the double prints back as the same decimal (doubles keep 15 decimal digits), so both
 * encodings agree. Digits inside strings match too: that only sends the text to the exact reader.
 */
const INEXACT_NUMBER = /(?:\d\.?){16}|[eE][+-]?\d{3}/;

/**
 * {@link encodeJsonText}, with the same result, taking `JSON.parse` (10-20x faster) when no number in `text` can lose
 * precision; test/property/json-fast-path.test.ts checks that both agree.
 */
export function encodeJsonTextFast(text: string): string | undefined {
  if (INEXACT_NUMBER.test(text)) return encodeJsonText(text);
  try {
    return encodeParsed(JSON.parse(text));
  } catch {
    // Not JSON (the exact reader says so too), or nested past the stack: the exact reader decides.
    return encodeJsonText(text);
  }
}

/** The canonical encoding of what `JSON.parse` returns (plain objects, arrays, strings, finite numbers, booleans, null). */
function encodeParsed(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return node.string(v);
    case 'number':
      return node.number(canonicalNumber(v) ?? String(v));
    case 'boolean':
      return v ? node.true : node.false;
  }
  if (v === null) return node.null;
  if (Array.isArray(v)) return node.array(v.map(encodeParsed));
  const o = v as Record<string, unknown>;
  return node.object(Object.keys(o).map((k): [string, string] => [k, encodeParsed(o[k])]));
}
