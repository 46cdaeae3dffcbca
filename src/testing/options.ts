/**
 * Option checks shared by the simulators: a wrong option is a `TypeError`
 * that names it, raised when the simulator is built, not deep inside a run.
 */

/** Throws a `TypeError` for any key of `options` not in `known`. */
export function rejectUnknownOptions(owner: string, options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new TypeError(`${owner}: unknown option "${name}" (known options: ${known.join(', ')}).`);
    }
  }
}

/** Throws a `TypeError` naming `name` unless `value` is an integer in [min, max]. */
export function checkInteger(owner: string, name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
    throw new TypeError(`${owner}: option "${name}" must be an integer ${range}, got ${String(value)}.`);
  }
  return value;
}

/** Throws a `TypeError` naming `name` unless `value` is a non-empty string. */
export function checkString(owner: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${owner}: option "${name}" must be a non-empty string, got ${String(value)}.`);
  }
  return value;
}

/** Throws a `TypeError` naming `name` unless `value` is a function. */
export function checkFunction(owner: string, name: string, value: unknown): void {
  if (typeof value !== 'function') {
    throw new TypeError(`${owner}: option "${name}" must be a function, got ${typeof value}.`);
  }
}

/** Throws a `TypeError` naming `name` unless `value` has a `now()` method. */
export function checkClock(owner: string, name: string, value: unknown): void {
  const now = (value as { now?: unknown } | null | undefined)?.now;
  if (typeof now !== 'function') {
    throw new TypeError(`${owner}: option "${name}" must be a clock with a now() method.`);
  }
}
