/**
 * `powertoolsRecords()`: the records AWS Powertools for Lambda (TypeScript) 2.35.0's `DynamoDBPersistenceLayer`
 * wrote, read during a cutover (the `previous` option of `sqsIdempotency` and `eventBridgeIdempotency`). A record is
 * found by Powertools' own key (key.ts) and judged as Powertools' conditional put would judge it: COMPLETED until its
 * `expiration`, INPROGRESS until its `in_progress_expiration` (or, without one, its `expiration`).
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { systemClock, type Clock } from '../../engine/clock.js';
import { errorParts, KeyFunctionError, PayloadFunctionError } from '../../engine/errors.js';
import { numericText } from '../../engine/numbers.js';
import { hasMethods, is, resolveOptions, type OptionRule, type RulesOf } from '../../engine/options.js';
import { previousRecords, type PreviousFinding, type PreviousRecords } from '../../engine/previous.js';
import { powertoolsHash, powertoolsKey } from './key.js';

/** Options of {@link powertoolsRecords}; `TInput` is an SQS record or an EventBridge event. */
export interface PowertoolsRecordsOptions<TInput> {
  /** A DocumentClient that can read Powertools' table (`dynamodb:GetItem`). */
  readonly client: DynamoDBDocumentClient;
  /** Powertools' table: the `tableName` of its `DynamoDBPersistenceLayer`. */
  readonly tableName: string;
  /**
   * What Powertools' `eventKeyJmesPath` selected from the record (`makeIdempotent` over `processPartialResponse`) or
   * the event (`makeHandlerIdempotent`); the whole record or event when it had none. `powertools_json(body).orderNo`
   * is `(r) => JSON.parse(r.body).orderNo`. `undefined` or `null`: Powertools skipped idempotency for it, so there is
   * nothing to read.
   */
  readonly key: (input: TInput) => unknown;
  /**
   * The end of the cutover window: from then on, Powertools' table is never read. Choose the moment every record
   * Powertools wrote has expired: the switch plus its `expiresAfterSeconds` (default one hour).
   */
  readonly until: Date;
  /** The `keyPrefix` you gave `makeIdempotent` or `makeHandlerIdempotent`, if you gave one. */
  readonly keyPrefix?: string;
  /**
   * The name of the function Powertools ran in: its key prefix when it had no `keyPrefix`. Default: this function's
   * (`AWS_LAMBDA_FUNCTION_NAME`), right when the new code replaces the old in the same function.
   */
  readonly functionName?: string;
  /** What Powertools' `payloadValidationJmesPath` selected, if it had one: a record written with another payload is refused, as Powertools refused it. */
  readonly payload?: (input: TInput) => unknown;
  /** Powertools' `hashFunction`. Default `'md5'`. */
  readonly hashFunction?: string;
  /** The `DynamoDBPersistenceLayer` attribute names, when you changed them (defaults: Powertools'). */
  readonly keyAttr?: string;
  readonly sortKeyAttr?: string;
  /** With `sortKeyAttr`: the partition key's value. Default, as Powertools: `idempotency#<functionName>`. */
  readonly staticPkValue?: string;
  readonly statusAttr?: string;
  readonly expiryAttr?: string;
  readonly inProgressExpiryAttr?: string;
  readonly dataAttr?: string;
  readonly validationKeyAttr?: string;
  /** Time for the window and for the records' expiry. Default the system clock; inject one in tests. */
  readonly clock?: Clock;
}

/** Defaults: Powertools' own (`PERSISTENCE_ATTRIBUTE_KEY_MAPPINGS`, `IdempotencyConfig`). */
const defaults = {
  hashFunction: 'md5',
  keyAttr: 'id',
  statusAttr: 'status',
  expiryAttr: 'expiration',
  inProgressExpiryAttr: 'in_progress_expiration',
  dataAttr: 'data',
  validationKeyAttr: 'validation',
  clock: systemClock,
};

const NAME = 'powertoolsRecords';

const hashFunctionRule: OptionRule = {
  expected: 'a hash function name node:crypto knows (Powertools\' hashFunction, e.g. "md5")',
  check: (v: unknown) => {
    if (typeof v !== 'string') return false;
    try {
      createHash(v);
      return true;
    } catch {
      return false;
    }
  },
};

const rules = {
  client: { ...hasMethods('a DynamoDBDocumentClient', 'send'), required: true },
  tableName: { ...is.nonEmptyString, required: true },
  key: { ...is.fn, required: true },
  until: {
    expected: 'a valid Date (the end of the cutover window)',
    required: true,
    check: (v: unknown) => v instanceof Date && !Number.isNaN(v.getTime()),
  },
  keyPrefix: is.nonEmptyString,
  functionName: is.nonEmptyString,
  payload: is.fn,
  hashFunction: hashFunctionRule,
  keyAttr: is.nonEmptyString,
  sortKeyAttr: is.nonEmptyString,
  staticPkValue: is.nonEmptyString,
  statusAttr: is.nonEmptyString,
  expiryAttr: is.nonEmptyString,
  inProgressExpiryAttr: is.nonEmptyString,
  dataAttr: is.nonEmptyString,
  validationKeyAttr: is.nonEmptyString,
  clock: is.clock,
} satisfies RulesOf<PowertoolsRecordsOptions<unknown>>;

type Resolved<TInput> = PowertoolsRecordsOptions<TInput> & typeof defaults;

/** A number as the DocumentClient hands it over (a `NumberValue` with `wrapNumbers`), or `undefined`. */
function numberOf(v: unknown): number | undefined {
  const text = numericText(v);
  return text === undefined ? undefined : Number(text);
}

/**
 * What a Powertools item says at `now` (epoch ms), as its conditional put decides whether a new invocation may take
 * the key: free once `expiration` (epoch s) has passed, or, INPROGRESS, once `in_progress_expiration` (epoch ms) has.
 * A status Powertools never writes holds until `expiration`, as Powertools refused it until then.
 */
export function powertoolsFinding(
  item: Readonly<Record<string, unknown>> | undefined,
  now: number,
  attrs: Pick<Resolved<unknown>, 'statusAttr' | 'expiryAttr' | 'inProgressExpiryAttr' | 'dataAttr' | 'validationKeyAttr'>,
  payloadHash?: string,
): PreviousFinding {
  if (item === undefined) return { kind: 'none' };
  const expiration = numberOf(item[attrs.expiryAttr]);
  if (expiration !== undefined && expiration < now / 1000) return { kind: 'none' };
  const status = item[attrs.statusAttr];
  const inProgressUntil = numberOf(item[attrs.inProgressExpiryAttr]);
  if (status === 'INPROGRESS' && inProgressUntil !== undefined && inProgressUntil < now) return { kind: 'none' };
  const recorded = item[attrs.validationKeyAttr];
  if (payloadHash !== undefined && typeof recorded === 'string' && recorded !== payloadHash) {
    return { kind: 'mismatch', detail: `its ${attrs.validationKeyAttr} hash is ${recorded}, this delivery's ${payloadHash}` };
  }
  if (status === 'COMPLETED')
    return item[attrs.dataAttr] === undefined ? { kind: 'completed' } : { kind: 'completed', result: item[attrs.dataAttr] };
  const held = status === 'INPROGRESS' ? inProgressUntil : undefined;
  return { kind: 'in-progress', untilMs: held ?? (expiration === undefined ? now : expiration * 1000) };
}

/** Calls one of the user's functions; what it throws makes the delivery invalid, named. */
function select<TInput>(fn: (input: TInput) => unknown, input: TInput, option: 'key' | 'payload'): unknown {
  try {
    return fn(input);
  } catch (error) {
    const Invalid = option === 'key' ? KeyFunctionError : PayloadFunctionError;
    throw new Invalid(`${NAME}: the ${option} function threw: ${errorParts(error).message}`, { cause: error });
  }
}

/**
 * The Powertools records of a function, for the `previous` option of `sqsIdempotency` and `eventBridgeIdempotency`
 * during a switch from Powertools idempotency 2.35 (`makeIdempotent` with `processPartialResponse`, or
 * `makeHandlerIdempotent`). Until `until`, a delivery about to run under a fresh claim of ours is first looked up in
 * Powertools' table (one strongly consistent `GetItem`), by Powertools' own key: COMPLETED and not expired, our
 * record is completed as a duplicate and the delivery acknowledged without running (EventBridge: Powertools' stored
 * result is replayed); INPROGRESS and not expired, our claim is released and the delivery comes back later; anything
 * else runs as usual. After `until`, nothing is read. See docs/migrating-from-powertools.md.
 *
 * @throws TypeError naming the option when one is unknown, missing or of the wrong type.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
 * import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from 'effectively-once';
 * import { powertoolsRecords } from 'effectively-once/powertools';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 * const orderNo = (r: SQSRecord) => jsonBody<{ orderNo: string }>(r).orderNo;
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(
 *     sqsIdempotency({
 *       store,
 *       consumer: 'orders',
 *       key: orderNo,
 *       // Powertools had eventKeyJmesPath: 'powertools_json(body).orderNo' and its records expire after an hour.
 *       previous: powertoolsRecords({ client, tableName: 'powertools-idempotency', key: orderNo, until: new Date('2026-07-01T13:00:00Z') }),
 *     }),
 *   )
 *   .handler(eachRecord(async (record) => console.log('paid', orderNo(record))));
 * ```
 */
export function powertoolsRecords<TInput>(options: PowertoolsRecordsOptions<TInput>): PreviousRecords<TInput> {
  const config: Resolved<TInput> = resolveOptions(NAME, options, rules, defaults);
  const functionName = config.functionName ?? process.env['AWS_LAMBDA_FUNCTION_NAME'] ?? '';
  // Powertools: a non-blank keyPrefix (trimmed), else the function's name.
  const prefix = config.keyPrefix?.trim() || functionName.trim();
  const { client, tableName, keyAttr, sortKeyAttr, hashFunction } = config;
  const staticPkValue = config.staticPkValue ?? `idempotency#${functionName}`;
  const itemKey = (id: string) => (sortKeyAttr === undefined ? { [keyAttr]: id } : { [keyAttr]: staticPkValue, [sortKeyAttr]: id });
  const { payload } = config;
  // A selection with no JSON text (nothing selected) is not compared: Powertools could not have recorded a hash of it.
  const payloadHashOf = (selected: unknown) =>
    JSON.stringify(selected) === undefined ? undefined : powertoolsHash(selected, hashFunction);

  async function find(input: TInput, now: number): Promise<PreviousFinding> {
    const selected = select(config.key, input, 'key');
    // Powertools skips idempotency when its eventKeyJmesPath selects nothing: no record to find.
    if (selected === undefined || selected === null) return { kind: 'none' };
    const id = powertoolsKey(prefix, selected, hashFunction);
    const hash = payload === undefined ? undefined : payloadHashOf(select(payload, input, 'payload'));
    const out = await client.send(new GetCommand({ TableName: tableName, Key: itemKey(id), ConsistentRead: true }));
    return powertoolsFinding(out.Item, now, config, hash);
  }

  return previousRecords({ library: 'Powertools', untilMs: config.until.getTime(), clock: config.clock, find });
}
