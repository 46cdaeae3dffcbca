/**
 * AWS Powertools for Lambda (TypeScript) 2.35.0's idempotency key, computed as its `BasePersistenceLayer` does
 * (`getHashedIdempotencyKey`): `<prefix>#<base64 digest of JSON.stringify(deepSort(selected))>`, md5 by default.
 * Written from its behaviour, not imported: a handler that switched away from Powertools carries none of its packages,
 * and no JMESPath: the user's function returns what their `eventKeyJmesPath` selected.
 */
import { createHash } from 'node:crypto';

/** Whether Powertools' `getType` calls `value` an object: `Object.prototype.toString` says `[object Object]`. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return Object.prototype.toString.call(value) === '[object Object]';
}

/**
 * Powertools' `deepSort`: every object's keys sorted without regard to case, at every level, arrays kept in order.
 * Its comparator is kept as it is (two keys equal but for case compare as "greater" both ways), so the order
 * `Array.prototype.sort` makes of them is the one Powertools makes on the same engine; and so is its plain
 * assignment, which gives a `__proto__` key the treatment Powertools gives it.
 */
export function powertoolsDeepSort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(powertoolsDeepSort);
  if (!isRecord(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))) {
    sorted[key] = powertoolsDeepSort(value[key]);
  }
  return sorted;
}

/**
 * Powertools' hash of a selection (`generateHash`): the base64 digest of its sorted JSON text. Used for the key and
 * for the payload validation hash (`payloadValidationJmesPath`).
 * @throws TypeError when `selected` has no JSON text (`undefined`, a function), as Powertools' own hashing does.
 */
export function powertoolsHash(selected: unknown, hashFunction = 'md5'): string {
  const text = JSON.stringify(powertoolsDeepSort(selected)) as string | undefined;
  if (text === undefined) throw new TypeError(`Powertools cannot hash ${typeof selected}: it has no JSON text.`);
  return createHash(hashFunction).update(text).digest('base64');
}

/**
 * The idempotency key Powertools 2.35.0 writes for a selection: `<keyPrefix>#<hash>`. `selected` is what its
 * `eventKeyJmesPath` selected (the whole event or record when it had none); `keyPrefix` is the `keyPrefix` given to
 * `makeIdempotent` or `makeHandlerIdempotent`, else the name of the function Powertools ran in.
 *
 * @example
 * ```ts
 * import { powertoolsKey } from 'effectively-once/powertools';
 * // makeIdempotent(fn, { persistenceStore, config: new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).orderNo' }) })
 * // in the function "orders-consumer", for a body {"orderNo":"o-42"}:
 * const id = powertoolsKey('orders-consumer', 'o-42'); // the `id` of its record in Powertools' table
 * console.log(id.startsWith('orders-consumer#'));
 * ```
 */
export function powertoolsKey(keyPrefix: string, selected: unknown, hashFunction = 'md5'): string {
  return `${keyPrefix}#${powertoolsHash(selected, hashFunction)}`;
}
