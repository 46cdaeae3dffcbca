/**
 * Option rules only the simulators use, beside the testing kit's
 * (src/testing/rules.ts) and the core ones.
 */
import type { OptionRule } from '../../src/engine/options.js';

/** Rule: an instance of `type`, e.g. an `SqsQueueSimulator`. */
export function instanceOf(expected: string, type: abstract new (...args: never[]) => unknown): OptionRule {
  return { expected, check: (v: unknown) => v instanceof type };
}

/** Rule: any value (an option the simulator passes through unchecked, e.g. an event). */
export const anyValue: OptionRule = { expected: 'any value', check: () => true };
