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
  /**
   * A partial settings object (a lease, a wait policy): {@link resolveOptions}
   * lays it over its default key by key. Absent: the value replaces the
   * default whole (a clock or a store is an object too, never merged).
   */
  readonly partial?: true;
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

/** The longest delay `setTimeout` keeps (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The longest record retention: 100 years. Far past any real use, and it
 * keeps `now + retentionMs` a date a record's TTL (epoch seconds) can carry;
 * 1e300 would fail every record when written.
 */
export const MAX_RETENTION_MS = 100 * 365.25 * 86_400_000;

/** Whether `v` is a finite number of ms, above 0 (`positive`) or at least 0, and at most `max`. */
export function isMsIn(v: unknown, positive: boolean, max: number): v is number {
  return typeof v === 'number' && Number.isFinite(v) && (positive ? v > 0 : v >= 0) && v <= max;
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
  /** A margin or delay that feeds a timer. */
  timerMs: {
    expected: `a non-negative number of milliseconds, at most ${MAX_TIMER_MS} (the longest a timer can wait)`,
    check: (v: unknown) => isMsIn(v, false, MAX_TIMER_MS),
  },
  retentionMs: {
    expected: `a positive number of ms, at most ${MAX_RETENTION_MS} (100 years)`,
    check: (v: unknown) => isMsIn(v, true, MAX_RETENTION_MS),
  },
  oneOf: (...values: readonly string[]): OptionRule => ({
    expected: `one of ${values.map((v) => `"${v}"`).join(', ')}`,
    check: (v: unknown) => typeof v === 'string' && values.includes(v),
  }),
  object: { expected: 'an object', check: (v: unknown) => isPlainObject(v) },
  clock: hasMethods('an object with a now() method', 'now'),
} as const satisfies Record<string, OptionRule | ((...a: never[]) => OptionRule)>;

/**
 * Whether `v` can stand for an object-valued option: an object, not `null`
 * and not an array (an array has no named settings, so `lease: []` would
 * silently mean "all defaults"). Every object-valued rule starts here.
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

/**
 * One rule for every key of an options interface, no more and no less:
 * declare a factory's rules with `satisfies RulesOf<TheOptions>` so that an
 * option added to the interface without a rule (or a rule left for a removed
 * option) fails to compile.
 */
export type RulesOf<T> = { readonly [K in keyof Required<T>]: OptionRule };

/** Options after {@link resolveOptions}: every defaulted key holds its default's type. */
export type Resolved<T, D> = Omit<T, keyof D> & D;

/**
 * The one resolve step of a factory: checks `options` against `rules` (a
 * `TypeError` naming the option), then lays them over `defaults`. A value
 * given as `undefined` keeps its default; an option whose rule is `partial`
 * (a lease, a wait policy) is laid over its default key by key, so a partial
 * one keeps the other defaults. `defaults` is never written to.
 */
export function resolveOptions<T extends object, D extends object>(
  owner: string,
  options: T,
  rules: RulesOf<T>,
  defaults: D,
): Resolved<T, D> {
  checkOptions(owner, options, rules as OptionRules);
  const resolved: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const fallback = resolved[name];
    const partial = (rules as OptionRules)[name]?.partial === true && isPlainObject(fallback) && isPlainObject(value);
    resolved[name] = partial ? { ...fallback, ...definedOnly(value) } : value;
  }
  // Every key was checked against its rule, and defaults carry the defaulted keys' types.
  return resolved as Resolved<T, D>;
}
