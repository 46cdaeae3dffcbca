/**
 * DynamoDB item size, computed the way DynamoDB documents it (attribute name
 * bytes + value bytes), so a too-large item is a clear error before sending
 * rather than a ValidationException after.
 */

/** DynamoDB's maximum item size: 400 KB. */
export const MAX_ITEM_BYTES = 400 * 1024;
/** `TransactWriteItems` aggregate size limit: 4 MB. */
export const MAX_TRANSACTION_BYTES = 4 * 1024 * 1024;
/** `TransactWriteItems` action count limit. */
export const MAX_TRANSACTION_ACTIONS = 100;

/** Size in bytes of one attribute value (plain JS value as the DocumentClient would marshall it). */
export function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    // Numbers are stored as up to 38 significant digits: ~1 byte per 2 digits + 1.
    const digits = String(value)
      .replace(/[^0-9]/g, '')
      .replace(/^0+/, '').length;
    return Math.ceil(digits / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let total = 0;
    for (const v of value) total += valueSize(v);
    return total;
  }
  if (Array.isArray(value)) {
    // 3 bytes of overhead per list plus 1 per element.
    return value.reduce((sum: number, v: unknown) => sum + valueSize(v) + 1, 3);
  }
  if (typeof value === 'object') {
    let total = 3;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      total += Buffer.byteLength(k) + valueSize(v) + 1;
    }
    return total;
  }
  return Buffer.byteLength(String(value));
}

/** Size in bytes of an item (a map of attribute name to plain value). */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const [name, v] of Object.entries(item)) {
    if (v === undefined) continue;
    total += Buffer.byteLength(name) + valueSize(v);
  }
  return total;
}
