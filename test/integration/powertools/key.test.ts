/**
 * Our derivation of Powertools' idempotency key (`powertoolsKey`) against what Powertools 2.35.0 really writes to its
 * table on DynamoDB Local, for data of several shapes (test/property/powertools-key.test.ts compares it with
 * Powertools' own function over any JSON value), and `powertoolsRecords()` finding those items with Powertools'
 * other table layouts (a composite key with `sortKeyAttr`) and hash functions.
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import middy from '@middy/core';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import { powertoolsKey, powertoolsRecords } from '../../../src/powertools/index.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { cutoverRig, FUNCTION_NAME, inFunction } from './rig.js';

/**
 * Values of several shapes; the last two are one value, its keys spelt in another order. (Keys equal but for case,
 * `a` and `A`, are another matter: Powertools' sort leaves them in the order given, and so does ours.)
 */
const SHAPES: readonly unknown[] = [
  'order-42',
  'Ünïcødé ✓',
  42,
  1.5,
  -7,
  [3, 'x', null],
  {
    orderNo: 'o-1',
    amount: { cents: 1999, currency: 'EUR' },
    lines: [
      { sku: 'b', qty: 2 },
      { qty: 1, sku: 'a' },
    ],
  },
  { b: { a: 'x', A: 'y' }, B: 'upper' },
  { b: { y: 1, x: [2, { d: 1, C: 2 }] }, Z: 'upper', a: null },
  { a: null, Z: 'upper', b: { x: [2, { C: 2, d: 1 }], y: 1 } },
];

describe('powertoolsKey is the key Powertools 2.35.0 writes', () => {
  it('for strings, numbers, arrays and nested objects whatever their key order (md5, a keyPrefix)', async () => {
    const rig = await cutoverRig();
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName: rig.powertoolsTable, awsSdkV3Client: rig.client });
    const send = makeIdempotent(async (_data: unknown) => 'sent', { persistenceStore, keyPrefix: 'shapes' });
    for (const value of SHAPES) expect(await send(value)).toBe('sent');
    const { Items = [] } = await rig.doc.send(new ScanCommand({ TableName: rig.powertoolsTable, ConsistentRead: true }));
    const written = Items.map((i) => i['id'] as string).sort();
    expect(written).toHaveLength(SHAPES.length - 1); // the two spellings of one value are one item
    expect([...new Set(SHAPES.map((v) => powertoolsKey('shapes', v)))].sort()).toEqual(written);
  });

  it('for an eventKeyJmesPath selection, sha256, and the function name as the prefix', async () => {
    const rig = await cutoverRig();
    const persistenceStore = inFunction(() => new DynamoDBPersistenceLayer({ tableName: rig.powertoolsTable, awsSdkV3Client: rig.client }));
    const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).[customerId, orderNo]', hashFunction: 'sha256' });
    const send = makeIdempotent(async (_record: { body: string }) => 'sent', { persistenceStore, config });
    await send({ body: JSON.stringify({ orderNo: 7, customerId: 'c-1', note: 'ignored' }) });
    const { Items = [] } = await rig.doc.send(new ScanCommand({ TableName: rig.powertoolsTable, ConsistentRead: true }));
    expect(Items.map((i) => i['id'])).toEqual([powertoolsKey(FUNCTION_NAME, ['c-1', 7], 'sha256')]);
  });

  it('powertoolsRecords finds a record in a table with sortKeyAttr (the static partition key of the function)', async () => {
    const rig = await cutoverRig({
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    const layout = { keyAttr: 'pk', sortKeyAttr: 'sk' } as const;
    const persistenceStore = inFunction(
      () => new DynamoDBPersistenceLayer({ tableName: rig.powertoolsTable, awsSdkV3Client: rig.client, ...layout }),
    );
    const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).orderNo' });
    const pay = makeIdempotent(async (_record: { body: string }) => rig.effect('s1'), { persistenceStore, config });
    const message = sqsRecord({ body: JSON.stringify({ orderNo: 's1' }) });
    await pay(message);

    const orderNo = (r: SQSRecord) => jsonBody<{ orderNo: string }>(r).orderNo;
    const until = new Date(rig.clock.now() + 60 * 60_000);
    const previous = inFunction(() =>
      powertoolsRecords({ client: rig.previousDoc, tableName: rig.powertoolsTable, ...layout, key: orderNo, until, clock: rig.clock }),
    );
    const store = new DynamoDBClaimStore({ client: rig.doc, tableName: rig.oursTable, clock: rig.clock });
    const ours = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'orders', key: orderNo, previous }))
      .handler(eachRecord(async (r) => rig.effect(orderNo(r))));
    const response = await ours(sqsEvent([message]), lambdaContext({ clock: rig.clock }));
    expect(response.batchItemFailures).toEqual([]);
    expect(rig.powertoolsReads()).toBe(1);
    expect(await rig.effects()).toEqual({ s1: 1 });
  });
});
