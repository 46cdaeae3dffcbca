/**
 * Numbers as DynamoDB clients hand them over: JS numbers, bigints, and the
 * `NumberValue` objects of a DocumentClient built with `wrapNumbers`
 * (recognised by shape, so core/ needs no AWS import).
 */

/**
 * The number's text, or `undefined` when `v` is not a number in any of those forms.
 *
 * @example
 * ```ts
 * import { numericText } from './numbers.js';
 * numericText(12n); // '12'
 * numericText({ value: '3.5' }); // '3.5' (a NumberValue)
 * numericText('12'); // undefined: a string is not a number
 * ```
 */
export function numericText(v: unknown): string | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'object' && v !== null && 'value' in v && typeof v.value === 'string' && Object.keys(v).length === 1) {
    return v.value;
  }
  return undefined;
}
