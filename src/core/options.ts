/**
 * Option checking for the factories: run once when a middleware or store is
 * built, so a typo fails at cold start with a `TypeError` that names the
 * option, not at the first message.
 */

/** A check for one option: returns true when the value is acceptable. */
export interface OptionRule {
  /** What the option must be, for the error message ("a function", "a positive number"). */
  readonly expected: string;
  readonly required?: boolean;
  readonly check: (value: unknown) => boolean;
}

/** Rules by option name. */
export type OptionRules = Readonly<Record<string, OptionRule>>;

/**
 * Throws a `TypeError` naming the first unknown option, missing required
 * option, or option of the wrong type. `undefined` counts as absent.
 */
export function checkOptions(owner: string, options: unknown, rules: OptionRules): void {
  if (!isPlainObject(options)) {
    throw new TypeError(`${owner}: options must be an object.`);
  }
  const given = options;
  for (const name of Object.keys(given)) {
    // hasOwn, not `in`: "constructor" or "toString" are not options.
    if (!Object.hasOwn(rules, name)) {
      const known = Object.keys(rules).join(', ');
      throw new TypeError(`${owner}: unknown option "${name}" (known options: ${known}).`);
    }
  }
  for (const [name, rule] of Object.entries(rules)) {
    const value = given[name];
    if (value === undefined) {
      if (rule.required === true) throw new TypeError(`${owner}: option "${name}" is required (${rule.expected}).`);
      continue;
    }
    if (!rule.check(value)) {
      throw new TypeError(`${owner}: option "${name}" must be ${rule.expected}, got ${describe(value)}.`);
    }
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.slice(0, 40)}"`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value;
}

/** Common rules. */
export const is = {
  fn: { expected: 'a function', check: (v: unknown) => typeof v === 'function' },
  nonEmptyString: { expected: 'a non-empty string', check: (v: unknown) => typeof v === 'string' && v.length > 0 },
  boolean: { expected: 'a boolean', check: (v: unknown) => typeof v === 'boolean' },
  positiveInt: {
    expected: 'a positive integer',
    check: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0,
  },
  nonNegativeMs: {
    expected: 'a non-negative number of milliseconds',
    check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  },
  oneOf: (...values: readonly string[]): OptionRule => ({
    expected: `one of ${values.map((v) => `"${v}"`).join(', ')}`,
    check: (v: unknown) => typeof v === 'string' && values.includes(v),
  }),
  object: { expected: 'an object', check: (v: unknown) => isPlainObject(v) },
} as const satisfies Record<string, OptionRule | ((...a: never[]) => OptionRule)>;

/**
 * Whether `v` can stand for an object-valued option: an object, not `null`
 * and not an array (an array has no named settings, so `lease: []` would
 * silently mean "all defaults"). Every object-valued rule starts here.
 *
 * @example
 * ```ts
 * import { isPlainObject } from './options.js';
 * console.log(isPlainObject({ maxMs: 10 }), isPlainObject([]), isPlainObject(null)); // true false false
 * ```
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rule: an object (not an array) with these methods (e.g. an `IdempotencyStore`). */
export function hasMethods(expected: string, ...methods: readonly string[]): OptionRule {
  return {
    expected,
    check: (v: unknown) => isPlainObject(v) && methods.every((m) => typeof v[m] === 'function'),
  };
}

/**
 * The options without their `undefined` values, so `{ ...defaults, ...definedOnly(options) }`
 * keeps a default that a JavaScript caller passed as `undefined`.
 */
export function definedOnly<T extends object>(options: T): T {
  // Same type: a key whose value was undefined is now absent, which every optional key allows.
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as T;
}
