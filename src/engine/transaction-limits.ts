/**
 * `TransactWriteItems` limits as pure checks, shared by the transaction
 * builder (fails at the `tx.put(...)` call that breaks a limit, with a useful
 * stack) and the store's commit (re-checks the final request, idempotency
 * item included). Breaking a limit is deterministic, so it is caught here
 * rather than surfacing later as a `ValidationException`.
 */
import { TransactionLimitError, type ErrorContext } from './errors.js';
import { canonicalJson } from './hashing.js';
import { MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES, itemSize, valueSize } from './size.js';

/** The item an action writes or checks: table plus primary key. */
export interface ItemRef {
  readonly tableName: string;
  readonly key: Readonly<Record<string, unknown>>;
}

/**
 * Canonical identity of one item: the same table and key give the same string
 * whatever the order of the key's attributes. Binary key values compare by
 * bytes (a `Buffer` and a `Uint8Array` holding the same bytes are one item).
 */
export function itemIdentity(table: string, key: Readonly<Record<string, unknown>>): string {
  // canonicalJson writes binary (any view) as base64 and bigints exactly, so equal keys give equal strings.
  return canonicalJson([table, key]);
}

/** Picks the key attributes out of a full item (a `Put`'s `Item`), or `undefined` when the item lacks one of them. */
export function projectKey(item: Readonly<Record<string, unknown>>, keyNames: readonly string[]): Record<string, unknown> | undefined {
  const key: Record<string, unknown> = {};
  for (const name of keyNames) {
    if (item[name] === undefined) return undefined;
    key[name] = item[name];
  }
  return keyNames.length === 0 ? undefined : key;
}

/**
 * Throws when `count` actions plus `reserved` ones (the idempotency item)
 * exceed the 100-action limit.
 *
 * @throws TransactionLimitError when `count + reserved > MAX_TRANSACTION_ACTIONS`.
 */
export function checkActionCount(count: number, reserved = 1, context: ErrorContext = {}): void {
  const max = MAX_TRANSACTION_ACTIONS - reserved;
  if (count > max) {
    throw new TransactionLimitError(
      `A transaction may hold at most ${max} actions here (${MAX_TRANSACTION_ACTIONS} minus ${reserved} reserved); ` +
        `action #${count} would exceed it. Split the work or move some writes out of the transaction.`,
      context,
    );
  }
}

/**
 * Throws when `ref` is an item some earlier action already touches
 * (`seen` holds their {@link itemIdentity}), or the reserved item.
 *
 * @throws TransactionLimitError naming the table and key.
 */
export function checkDistinctItem(ref: ItemRef, seen: ReadonlySet<string>, reserved?: ItemRef, context: ErrorContext = {}): void {
  const identity = itemIdentity(ref.tableName, ref.key);
  if (reserved !== undefined && identity === itemIdentity(reserved.tableName, reserved.key)) {
    throw new TransactionLimitError(
      `The handler's transaction may not touch the idempotency record (${describeRef(ref)}); the library writes it.`,
      context,
    );
  }
  if (seen.has(identity)) {
    throw new TransactionLimitError(
      `Two actions in one transaction target the same item (${describeRef(ref)}); DynamoDB refuses that. Merge them into one action.`,
      context,
    );
  }
}

/**
 * Throws when the estimated request size passes the 4 MB aggregate limit.
 *
 * @throws TransactionLimitError with the estimate and the limit.
 */
export function checkTransactionSize(bytes: number, context: ErrorContext = {}): void {
  if (bytes > MAX_TRANSACTION_BYTES) {
    throw new TransactionLimitError(
      `The transaction is about ${bytes} bytes, over the ${MAX_TRANSACTION_BYTES}-byte TransactWriteItems limit.`,
      context,
    );
  }
}

/** The parts of a DocumentClient transaction action that cost bytes. */
export interface ActionShape {
  readonly TableName?: string | undefined;
  readonly Key?: Readonly<Record<string, unknown>> | undefined;
  readonly Item?: Readonly<Record<string, unknown>> | undefined;
  readonly UpdateExpression?: string | undefined;
  readonly ConditionExpression?: string | undefined;
  readonly ExpressionAttributeNames?: Readonly<Record<string, string>> | undefined;
  readonly ExpressionAttributeValues?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Estimated bytes one action adds to the request: item or key, expression
 * strings, attribute names and values. An estimate, not DynamoDB's exact
 * accounting: it errs on the large side.
 */
export function estimateActionSize(action: ActionShape): number {
  let bytes = Buffer.byteLength(action.TableName ?? '');
  if (action.Item !== undefined) bytes += itemSize(action.Item);
  if (action.Key !== undefined) bytes += itemSize(action.Key);
  bytes += Buffer.byteLength(action.UpdateExpression ?? '') + Buffer.byteLength(action.ConditionExpression ?? '');
  for (const [placeholder, name] of Object.entries(action.ExpressionAttributeNames ?? {})) {
    bytes += Buffer.byteLength(placeholder) + Buffer.byteLength(name);
  }
  for (const [placeholder, value] of Object.entries(action.ExpressionAttributeValues ?? {})) {
    bytes += Buffer.byteLength(placeholder) + valueSize(value);
  }
  return bytes;
}

function describeRef(ref: ItemRef): string {
  const key = canonicalJson(ref.key);
  return `table ${ref.tableName}, key ${key.length > 200 ? `${key.slice(0, 200)}…` : key}`;
}
