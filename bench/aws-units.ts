/**
 * `--aws`: the capacity units DynamoDB on-demand would bill for the requests
 * a variant actually sends, counted from each command's input and answer
 * (not from DynamoDB Local's ConsumedCapacity, which undercounts
 * transactions and says nothing for a refused write). The rules, from
 * DynamoDB's developer guide and pricing page:
 *
 * - a write: 1 WRU per started KB of the item (PutItem: the larger of the
 *   new and the old item where the old one is returned; UpdateItem: the
 *   item it returned with ALL_NEW / ALL_OLD, else its key and values, a
 *   lower bound; DeleteItem: the deleted item where returned, else 1);
 * - a refused conditional write is billed too: the existing item's size
 *   where the refusal returned it (ALL_OLD), else 1 WRU (the minimum);
 * - a transactional write: twice that per item (prepare and commit),
 *   ConditionCheck included; a cancelled one as `cancelledTransactionFactor`;
 * - a read: per started 4 KB, half for eventually consistent, full for
 *   strongly consistent, twice for transactional; BatchGetItem rounds each
 *   item, Query and Scan the total; a key that finds nothing still costs
 *   the minimum.
 *
 * The bench's items are all well under 1 KB, so in practice every write is
 * 1 WRU (2 in a transaction) and every read the minimum.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { awsModel } from './aws-model.js';

/** Write and read request units. */
export interface UnitCount {
  readonly wru: number;
  readonly rru: number;
}

/** One command as the client sent it (input after marshalling) and what came back. */
export interface ObservedRequest {
  readonly commandName: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly output?: Readonly<Record<string, unknown>> | undefined;
  readonly error?: unknown;
}

type Item = Record<string, unknown>;

const ZERO: UnitCount = { wru: 0, rru: 0 };

const TAGS = new Set(['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL']);
const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

function isAttributeValue(v: unknown): v is AttributeValue {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && TAGS.has(keys[0] as string);
}

/** DynamoDB's size of a number: one byte per two significant digits, plus one. */
export function numberSize(n: string): number {
  const digits = n
    .replace(/^[+-]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function binarySize(b: unknown): number {
  return b instanceof Uint8Array ? b.byteLength : typeof b === 'string' ? Buffer.from(b, 'base64').byteLength : 0;
}

/** Bytes of one attribute value (lists and maps: 3 bytes plus one per element). */
export function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return binarySize(v.B);
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS !== undefined) return v.SS.reduce((sum, s) => sum + utf8(s), 0);
  if (v.NS !== undefined) return v.NS.reduce((sum, s) => sum + numberSize(s), 0);
  if (v.BS !== undefined) return v.BS.reduce((sum, b) => sum + binarySize(b), 0);
  if (v.L !== undefined) return 3 + v.L.reduce((sum, e) => sum + 1 + valueSize(e), 0);
  if (v.M !== undefined) return 3 + Object.entries(v.M).reduce((sum, [k, e]) => sum + 1 + utf8(k) + valueSize(e), 0);
  return 0;
}

/**
 * Bytes of an item: attribute names plus values. The DocumentClient hands
 * back plain values (`{ n: 1 }`), the low-level client attribute values
 * (`{ n: { N: '1' } }`); plain ones are marshalled first.
 */
export function itemSize(item: unknown): number {
  if (typeof item !== 'object' || item === null) return 0;
  const values = Object.values(item);
  const av = values.every(isAttributeValue)
    ? (item as Record<string, AttributeValue>)
    : marshall(item as Item, { removeUndefinedValues: true, convertClassInstanceToMap: true });
  return Object.entries(av).reduce((sum, [name, v]) => sum + utf8(name) + valueSize(v), 0);
}

const u = awsModel.units;

/** WRU of one non-transactional write of an item of `bytes`. */
export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / u.writeUnitBytes));
}

export type ReadKind = 'eventual' | 'strong' | 'transactional';

/** RRU of reading `bytes` (a missing item: the minimum). */
export function readUnits(bytes: number, kind: ReadKind): number {
  const blocks = Math.max(1, Math.ceil(bytes / u.readUnitBytes));
  const factor = kind === 'eventual' ? u.eventuallyConsistentFactor : kind === 'strong' ? 1 : u.transactionalFactor;
  return blocks * factor;
}

const consistency = (input: Readonly<Record<string, unknown>> | undefined): ReadKind =>
  input?.['ConsistentRead'] === true ? 'strong' : 'eventual';

/** An update's key and values: what is known of the item it writes without ReturnValues (a lower bound). */
function keyAndValuesSize(input: Readonly<Record<string, unknown>>): number {
  const values = (input['ExpressionAttributeValues'] ?? {}) as Record<string, AttributeValue>;
  return itemSize(input['Key']) + Object.values(values).reduce((sum, v) => sum + valueSize(v), 0);
}

/** Bytes one write action writes, from its input (and the item returned, where there is one). */
function writeSize(action: string, input: Readonly<Record<string, unknown>>, returned: unknown): number {
  const old = itemSize(returned);
  switch (action) {
    case 'Put':
      return Math.max(itemSize(input['Item']), old);
    case 'Update':
      return Math.max(keyAndValuesSize(input), old);
    default: // Delete, ConditionCheck: the key (or the item returned)
      return Math.max(itemSize(input['Key']), old);
  }
}

const errorName = (err: unknown): string => (err as { name?: string } | undefined)?.name ?? '';

function singleWrite(action: string, r: ObservedRequest): UnitCount {
  if (r.error !== undefined) {
    // Refused by its condition: billed on the existing item (returned with ALL_OLD), else the minimum.
    if (errorName(r.error) !== 'ConditionalCheckFailedException') return ZERO;
    return { wru: writeUnits(itemSize((r.error as { Item?: unknown }).Item)), rru: 0 };
  }
  return { wru: writeUnits(writeSize(action, r.input, r.output?.['Attributes'])), rru: 0 };
}

const ACTIONS = ['Put', 'Update', 'Delete', 'ConditionCheck'] as const;

function transactWrite(r: ObservedRequest): UnitCount {
  const items = (r.input['TransactItems'] ?? []) as Array<Record<string, Readonly<Record<string, unknown>>>>;
  let factor: number = u.transactionalFactor;
  let reasons: Array<{ Item?: unknown }> = [];
  if (r.error !== undefined) {
    if (errorName(r.error) !== 'TransactionCanceledException') return ZERO;
    factor = u.cancelledTransactionFactor;
    reasons = ((r.error as { CancellationReasons?: Array<{ Item?: unknown }> }).CancellationReasons ?? []) as typeof reasons;
  }
  const wru = items.reduce((sum, item, i) => {
    const action = ACTIONS.find((a) => item[a] !== undefined);
    const input = action === undefined ? undefined : item[action];
    return action === undefined || input === undefined ? sum : sum + factor * writeUnits(writeSize(action, input, reasons[i]?.Item));
  }, 0);
  return { wru, rru: 0 };
}

function batchGet(r: ObservedRequest): UnitCount {
  const requested = (r.input['RequestItems'] ?? {}) as Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }>;
  const responses = (r.output?.['Responses'] ?? {}) as Record<string, unknown[]>;
  const unprocessed = (r.output?.['UnprocessedKeys'] ?? {}) as Record<string, { Keys?: unknown[] }>;
  let rru = 0;
  for (const [table, req] of Object.entries(requested)) {
    const kind = consistency(req as Record<string, unknown>);
    const found = responses[table] ?? [];
    const processed = (req.Keys?.length ?? 0) - (unprocessed[table]?.Keys?.length ?? 0);
    rru += found.reduce<number>((sum, item) => sum + readUnits(itemSize(item), kind), 0);
    rru += Math.max(0, processed - found.length) * readUnits(0, kind);
  }
  return { wru: 0, rru };
}

function batchWrite(r: ObservedRequest): UnitCount {
  type Write = Record<string, { Item?: unknown; Key?: unknown } | undefined>;
  const units = (writes: readonly Write[] | undefined): number =>
    (writes ?? []).reduce((total, w) => total + writeUnits(itemSize(w['PutRequest']?.Item ?? w['DeleteRequest']?.Key)), 0);
  const requested = (r.input['RequestItems'] ?? {}) as Record<string, Write[]>;
  const unprocessed = (r.output?.['UnprocessedItems'] ?? {}) as Record<string, Write[]>;
  // Unprocessed writes were not applied: the request that sends them again is counted for them.
  const wru = Object.entries(requested).reduce((total, [table, writes]) => total + units(writes) - units(unprocessed[table]), 0);
  return { wru, rru: 0 };
}

function transactGet(r: ObservedRequest): UnitCount {
  const items = (r.input['TransactItems'] ?? []) as unknown[];
  const responses = (r.output?.['Responses'] ?? []) as Array<{ Item?: unknown }>;
  return { wru: 0, rru: items.reduce<number>((sum, _, i) => sum + readUnits(itemSize(responses[i]?.Item), 'transactional'), 0) };
}

/**
 * A statement refused by the item it found, billed as a refused conditional
 * write. `DuplicateItem` (an INSERT onto an existing key): AWS's PartiQL
 * INSERT page (docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html)
 * says only that the error is returned, and no page states its capacity. An
 * INSERT is a put conditioned on the key's absence, and "If a
 * ConditionExpression evaluates to false during a conditional write,
 * DynamoDB still consumes write capacity from the table" (WorkingWithItems,
 * capacity units consumed by conditional writes; "dependent on the size of
 * the existing item (or a minimum of 1)"): charged so, 1 WRU where the
 * refusal returns no item to size it by. The conservative reading: it
 * is our claim path that sends them.
 */
const REFUSALS: ReadonlySet<string> = new Set(['ConditionalCheckFailed', 'DuplicateItem']);

/** A PartiQL statement: a SELECT reads its item, anything else is a write of its parameters (refused ones too). */
function statement(
  s: Readonly<Record<string, unknown>>,
  answer: { Item?: unknown; Error?: { Code?: string; Item?: unknown } } | undefined,
): UnitCount {
  if (/^\s*select\b/i.test(String(s['Statement'] ?? ''))) return { wru: 0, rru: readUnits(itemSize(answer?.Item), consistency(s)) };
  if (answer?.Error !== undefined) {
    // Refused: billed on the existing item ("dependent on the size of the existing item (or a minimum of 1)").
    return REFUSALS.has(answer.Error.Code ?? '') ? { wru: writeUnits(itemSize(answer.Error.Item)), rru: 0 } : ZERO;
  }
  const params = (s['Parameters'] ?? []) as AttributeValue[];
  const bytes = Math.max(
    itemSize(answer?.Item), // an UPDATE ... RETURNING ALL NEW *: the item it wrote
    params.reduce((sum, p) => sum + valueSize(p), 0),
  );
  return { wru: writeUnits(bytes), rru: 0 };
}

function batchStatements(r: ObservedRequest): UnitCount {
  const statements = (r.input['Statements'] ?? []) as Array<Readonly<Record<string, unknown>>>;
  const responses = (r.output?.['Responses'] ?? []) as Array<{ Item?: unknown; Error?: { Code?: string; Item?: unknown } }>;
  return sum(statements.map((s, i) => statement(s, responses[i])));
}

function executeStatement(r: ObservedRequest): UnitCount {
  if (r.error === undefined) return statement(r.input, r.output as { Item?: unknown } | undefined);
  const code = { ConditionalCheckFailedException: 'ConditionalCheckFailed', DuplicateItemException: 'DuplicateItem' }[errorName(r.error)];
  if (code === undefined) return ZERO;
  return statement(r.input, { Error: { Code: code, Item: (r.error as { Item?: unknown }).Item } });
}

const SINGLE_WRITES: Readonly<Record<string, string>> = { PutItem: 'Put', UpdateItem: 'Update', DeleteItem: 'Delete' };

/** Units of one observed request; commands that bill nothing (DescribeTable, …) and failures other than refusals: 0. */
export function requestUnits(r: ObservedRequest): UnitCount {
  const name = r.commandName.replace(/Command$/, '');
  const write = SINGLE_WRITES[name];
  if (write !== undefined) return singleWrite(write, r);
  if (name === 'TransactWriteItems') return transactWrite(r);
  if (name === 'ExecuteStatement') return executeStatement(r);
  // Reads and batch writes: a request that failed as a whole was not billed.
  if (r.error !== undefined) return ZERO;
  switch (name) {
    case 'BatchWriteItem':
      return batchWrite(r);
    case 'GetItem':
      return { wru: 0, rru: readUnits(itemSize(r.output?.['Item']), consistency(r.input)) };
    case 'BatchGetItem':
      return batchGet(r);
    case 'TransactGetItems':
      return transactGet(r);
    case 'Query':
    case 'Scan': {
      const bytes = ((r.output?.['Items'] ?? []) as unknown[]).reduce<number>((total, item) => total + itemSize(item), 0);
      return { wru: 0, rru: readUnits(bytes, consistency(r.input)) };
    }
    case 'BatchExecuteStatement':
      return batchStatements(r);
    default:
      return ZERO;
  }
}

/** Sums unit counts. */
export function sum(counts: readonly UnitCount[]): UnitCount {
  return counts.reduce((acc, c) => ({ wru: acc.wru + c.wru, rru: acc.rru + c.rru }), { wru: 0, rru: 0 });
}
