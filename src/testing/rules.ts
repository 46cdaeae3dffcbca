/**
 * Option rules the testing helpers add to the core ones (`is`, `hasMethods`),
 * for `checkOptions`: a wrong option is a `TypeError` that names it, raised
 * when the helper is built, not deep inside a run.
 */
import { hasMethods } from '../engine/options.js';
import type { OptionRule } from '../engine/options.js';

/** Rule: an integer in [min, max] (no upper bound when `max` is omitted). */
export function intIn(min: number, max?: number): OptionRule {
  return {
    expected: max === undefined ? `an integer >= ${min}` : `an integer between ${min} and ${max}`,
    check: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= min && (max === undefined || v <= max),
  };
}

/** Rule: the same rule, but the option must be given. */
export function required(rule: OptionRule): OptionRule {
  return { ...rule, required: true };
}

/** Rule: a positive, finite number of milliseconds (a timeout). */
export const positiveMs: OptionRule = {
  expected: 'a positive number',
  check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0,
};

/** Rule: a `Clock`. */
export const clockRule: OptionRule = hasMethods('a clock with a now() method', 'now');
