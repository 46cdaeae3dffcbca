/** Numbers as DynamoDB clients hand them over: JS numbers, bigints, and the `NumberValue`s of `wrapNumbers`. */

/** What `@aws-sdk/util-dynamodb`'s `NumberValue` looks like from here. */
export interface NumberValueLike {
  readonly value: string;
  toBigInt(): bigint;
}

/**
 * True for a util-dynamodb `NumberValue` (or a class shaped like it): a `value` string and a `toBigInt` inherited from
 * a prototype other than `Object.prototype`. The engine imports no AWS package; recognising it by shape alone
 * (`{ value: '2' }`) would take a user's map (from DynamoDB or `JSON.parse`: plain objects) for a number.
 */
export function isNumberValue(v: unknown): v is NumberValueLike {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === null || proto === Object.prototype) return false;
  if (Object.hasOwn(v, 'toBigInt')) return false;
  const candidate = v as { value?: unknown; toBigInt?: unknown };
  return typeof candidate.value === 'string' && typeof candidate.toBigInt === 'function';
}

/** The number's text, or `undefined` when `v` is not a number in any of those forms. */
export function numericText(v: unknown): string | undefined {
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return isNumberValue(v) ? v.value : undefined;
}

// Sign, integer digits, fraction digits, exponent. No nested quantifiers: linear on long digit runs.
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** Integer text a double holds exactly (at most 15 digits), no sign or zero padding to normalise. */
const SMALL_INTEGER = /^-?(?:0|[1-9]\d{0,14})$/;

/**
 * One text per numeric value, exact (no float rounding): `digits e exponent` with no leading or trailing zeros in the
 * digits, or `0`. `1.50`, `15e-1`, `1.5` and `NumberValue('1.5')` all give `15e-1`; `-0` is `0`. Non-finite numbers
 * keep `NaN`, `Infinity` and `-Infinity`; a NumberValue whose text is no decimal keeps it after a `?` (equal to no
 * decimal). A string is read as a JSON number token; `undefined` when it is none, or when `v` is not a number.
 */
export function canonicalNumber(v: unknown): string | undefined {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return integerForm(v);
  if (typeof v === 'string' && SMALL_INTEGER.test(v)) return integerForm(Number(v));
  const text = typeof v === 'string' ? v : numericText(v);
  if (text === undefined) return undefined;
  const m = DECIMAL.exec(text);
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) return typeof v === 'string' ? undefined : `?${text}`;
  const [, sign = '', int = '', frac = '', exp = '0'] = m;
  const digits = (int + frac).replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const shift = frac.length - (digits.length - significant.length);
  // BigInt only for exponents a double cannot add exactly (it is slow on the hot path of every number).
  const exponent = exp.length < 16 ? Number(exp) - shift : BigInt(exp) - BigInt(shift);
  return `${sign === '-' ? '-' : ''}${significant}e${exponent}`;
}

/** The common case without a regex: a safe integer's digits with its trailing zeros moved to the exponent. */
function integerForm(n: number): string {
  if (n === 0) return '0';
  let digits = String(Math.abs(n));
  let exponent = 0;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent += 1;
  }
  return `${n < 0 ? '-' : ''}${digits}e${exponent}`;
}
