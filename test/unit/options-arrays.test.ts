/**
 * Arrays are not objects (issue 10, item 6). For every factory and helper
 * that takes an options object, and for each of its object-valued options,
 * an array in its place is a `TypeError` naming the option (or, for the
 * options argument itself, saying that options must be an object) when the
 * thing is built, never silently taken as "no settings".
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  dynamoDBStreamsIdempotency,
  eachRecord,
  eventBridgeIdempotency,
  kinesisIdempotency,
  sqsIdempotency,
  type IdempotencyStore,
} from '../../src/index.js';
import { TransactionBuilder } from '../../src/strategies/transaction/builder.js';
import { SqsQueueSimulator, drain, invokeAsync, runEventSourceMapping } from '../../scripts/sim/index.js';
import { crashAfter, crashingStore, flaky, injectDynamoDBFaults, invoke, lambdaContext } from '../../src/testing/index.js';

const ddb = new DynamoDBClient({ region: 'us-east-1' });
const client = DynamoDBDocumentClient.from(ddb);
const store = new DynamoDBIdempotencyStore({ client, tableName: 't' }) as IdempotencyStore;
const key = () => 'k';
const queue = new SqsQueueSimulator();
const handler = async () => undefined;

/** Calls `build` and returns what it threw or rejected with. */
async function failure(build: () => unknown): Promise<unknown> {
  try {
    await build();
  } catch (error) {
    return error;
  }
  return undefined;
}

const OPTIONS_OBJECT = /options must be an object/;
const named = (option: string) => new RegExp(`"${option.replace(/[[\]]/g, '\\$&')}"`);

// [what is built, the option given as an array, how the error names it]
const cases: ReadonlyArray<readonly [string, () => unknown, RegExp]> = [
  // middlewares and the per-record runner
  ['sqsIdempotency options', () => sqsIdempotency([] as never), OPTIONS_OBJECT],
  ['sqsIdempotency lease', () => sqsIdempotency({ store, key, lease: [] as never }), named('lease')],
  ['sqsIdempotency store', () => sqsIdempotency({ store: [] as never, key }), named('store')],
  ['kinesisIdempotency options', () => kinesisIdempotency([] as never), OPTIONS_OBJECT],
  ['kinesisIdempotency lease', () => kinesisIdempotency({ store, lease: [] as never }), named('lease')],
  ['kinesisIdempotency store', () => kinesisIdempotency({ store: [] as never }), named('store')],
  ['dynamoDBStreamsIdempotency options', () => dynamoDBStreamsIdempotency([] as never), OPTIONS_OBJECT],
  ['dynamoDBStreamsIdempotency lease', () => dynamoDBStreamsIdempotency({ store, lease: [] as never }), named('lease')],
  ['dynamoDBStreamsIdempotency store', () => dynamoDBStreamsIdempotency({ store: [] as never }), named('store')],
  ['eventBridgeIdempotency options', () => eventBridgeIdempotency([] as never), OPTIONS_OBJECT],
  ['eventBridgeIdempotency lease', () => eventBridgeIdempotency({ store, key, lease: [] as never }), named('lease')],
  ['eventBridgeIdempotency wait', () => eventBridgeIdempotency({ store, key, wait: [] as never }), named('wait')],
  ['eventBridgeIdempotency store', () => eventBridgeIdempotency({ store: [] as never, key }), named('store')],
  ['eachRecord options', () => eachRecord(handler, [] as never), OPTIONS_OBJECT],
  // the store
  ['DynamoDBIdempotencyStore options', () => new DynamoDBIdempotencyStore([] as never), OPTIONS_OBJECT],
  ['DynamoDBIdempotencyStore cache', () => new DynamoDBIdempotencyStore({ client, tableName: 't', cache: [] as never }), named('cache')],
  [
    'DynamoDBIdempotencyStore cache (an array carrying maxEntries)',
    () => new DynamoDBIdempotencyStore({ client, tableName: 't', cache: Object.assign([], { maxEntries: 5 }) as never }),
    named('cache'),
  ],
  ['DynamoDBIdempotencyStore client', () => new DynamoDBIdempotencyStore({ client: [] as never, tableName: 't' }), named('client')],
  ['DynamoDBIdempotencyStore clock', () => new DynamoDBIdempotencyStore({ client, tableName: 't', clock: [] as never }), named('clock')],
  // the transaction builder
  ['TransactionBuilder options', () => new TransactionBuilder([] as never), OPTIONS_OBJECT],
  ['TransactionBuilder reservedItem', () => new TransactionBuilder({ reservedItem: [] as never }), named('reservedItem')],
  [
    'TransactionBuilder reservedItem.key',
    () => new TransactionBuilder({ reservedItem: { tableName: 't', key: [] as never } }),
    named('reservedItem'),
  ],
  ['TransactionBuilder keySchema', () => new TransactionBuilder({ keySchema: [] as never }), named('keySchema')],
  // the testing helpers
  ['SqsQueueSimulator options', () => new SqsQueueSimulator([] as never), OPTIONS_OBJECT],
  ['SqsQueueSimulator.send options', () => queue.send('x', [] as never), OPTIONS_OBJECT],
  ['SqsQueueSimulator.send messageAttributes', () => queue.send('x', { messageAttributes: [] as never }), named('messageAttributes')],
  ['runEventSourceMapping options', () => runEventSourceMapping([] as never), OPTIONS_OBJECT],
  ['drain options', () => drain([] as never), OPTIONS_OBJECT],
  ['invokeAsync options', () => invokeAsync([] as never), OPTIONS_OBJECT],
  ['invoke options', () => invoke(handler, {}, [] as never), OPTIONS_OBJECT],
  ['invoke context', () => invoke(handler, {}, { context: [] as never }), named('context')],
  ['lambdaContext options', () => lambdaContext([] as never), OPTIONS_OBJECT],
  ['flaky options', () => flaky([] as never), OPTIONS_OBJECT],
  ['crashAfter options', () => crashAfter(1, [] as never), OPTIONS_OBJECT],
  ['crashingStore options', () => crashingStore(store, [] as never), OPTIONS_OBJECT],
  ['crashingStore probability', () => crashingStore(store, { probability: [] as never }), named('probability')],
  ['injectDynamoDBFaults options', () => injectDynamoDBFaults(ddb, [] as never), OPTIONS_OBJECT],
  ['injectDynamoDBFaults rules[0]', () => injectDynamoDBFaults(ddb, { rules: [[] as never] }), /rules\[0\].*options must be an object/],
];

describe('an array where an options object belongs', () => {
  it.each(cases)('%s: a TypeError that names it', async (_what, build, message) => {
    const error = await failure(build);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });
});
