/**
 * dynamoDBStreamsIdempotency on DynamoDB Local's stream through the local
 * stream poller: the transaction strategy commits each change's ledger write
 * with its idempotency record; order, stop at the first failure with its
 * sequence number, redeliveries (retry, bisection) acknowledged without
 * re-running, a bad record failing alone, and a second stream going on.
 */
import middy from '@middy/core';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  DynamoDBIdempotencyStore,
  dynamoDBImages,
  dynamoDBStreamsIdempotency,
  type RecordContext,
  type TransactionBuilder,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { Strategy } from '../../../src/batch/options.js';
import {
  streamPoller,
  type DynamoDBStreamsPollerSource,
  type StreamInvocationReport,
  type StreamPollerOptions,
} from '../../../scripts/sim/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { streamTable, testStreamsClient } from '../../support/streams.js';
import { runner, strategyOf } from '../../support/strategy.js';

const { client, doc } = testDynamo();
const streams = testStreamsClient();

type Order = { pk: string; orderNo?: string; status: string };
/** The business key: the order and the status it reached (one effect per state change). */
const key = (r: DynamoDBRecord) => {
  const order = dynamoDBImages<Order>(r).newImage;
  return order?.orderNo === undefined ? undefined : `${order.orderNo}#${order.status}`;
};

async function setup(strategy: Strategy) {
  const source = await streamTable(client, 'orders');
  const ledger = await freshTable(client, businessTable, 'ledger');
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
  const runs: string[] = [];
  const lines: BatchLogLine[] = [];
  const responses: DynamoDBBatchResponse[] = [];
  const failing = new Map<string, number>();
  const middleware = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(dynamoDBStreamsIdempotency({ store, consumer: 'ddb-test', strategy: strategyOf(strategy), key, logger: (l) => lines.push(l) }))
    .handler(
      runner(strategy)(async (record: DynamoDBRecord, { key: k, tx }: RecordContext & { readonly tx?: TransactionBuilder }) => {
        runs.push(k);
        const left = failing.get(k) ?? 0;
        if (left > 0) {
          failing.set(k, left - 1);
          throw new Error(`${k} fails`);
        }
        const effect = {
          TableName: ledger,
          Key: { pk: k },
          UpdateExpression: 'ADD applied :one',
          ExpressionAttributeValues: { ':one': 1 },
        };
        if (tx !== undefined) tx.update(effect);
        else await doc.send(new UpdateCommand(effect));
        return record.eventID;
      }),
    );
  const handler = async (event: DynamoDBStreamEvent, context: Context) => {
    const response = await middleware(event, context);
    responses.push(response);
    return response;
  };
  const write = (orderNo: string | undefined, status = 'PAID', pk = orderNo ?? 'none') =>
    client.send(
      new PutItemCommand({
        TableName: source.tableName,
        Item: { pk: { S: pk }, status: { S: status }, ...(orderNo === undefined ? {} : { orderNo: { S: orderNo } }) },
      }),
    );
  const applied = async (k: string) => (await doc.send(new GetCommand({ TableName: ledger, Key: { pk: k } }))).Item?.['applied'];
  const poller = (options: Partial<StreamPollerOptions<DynamoDBStreamsPollerSource>> = {}) =>
    streamPoller({ source: { kind: 'dynamodb-streams', client: streams, streamArn: source.streamArn }, handler, ...options });
  return { ...source, runs, lines, responses, failing, handler, middleware, write, applied, poller };
}

const ids = (r: DynamoDBBatchResponse | undefined) => r?.batchItemFailures.map((f) => f.itemIdentifier);

describe('dynamoDBStreamsIdempotency on DynamoDB Local streams', () => {
  it('transaction: runs changes in order, stops at the first failure (named by sequence number), retries from there', async () => {
    const t = await setup('transaction');
    for (const no of ['o1', 'o2', 'o3', 'o4']) await t.write(no);
    t.failing.set('o2#PAID', 1);
    const reports: StreamInvocationReport[] = [];
    await t.poller({ onInvoke: (r) => reports.push(r) }).drain();
    const [first, second] = reports;
    expect(first?.outcome).toBe('partial');
    expect(first?.failedAt).toBe(first?.sequenceNumbers[1]);
    // The response names o2 and what comes after it, o3 and o4 (not run): Lambda takes the lowest.
    expect(ids(t.responses[0])).toEqual(first?.sequenceNumbers.slice(1));
    expect(second).toMatchObject({ outcome: 'succeeded', sequenceNumbers: first?.sequenceNumbers.slice(1) });
    expect(t.runs).toEqual(['o1#PAID', 'o2#PAID', 'o2#PAID', 'o3#PAID', 'o4#PAID']);
    for (const no of ['o1', 'o2', 'o3', 'o4']) expect(await t.applied(`${no}#PAID`)).toBe(1);
  });

  it('transaction: a whole-batch retry after the records committed is acknowledged, nothing applied twice', async () => {
    const t = await setup('transaction');
    for (const no of ['r1', 'r2']) await t.write(no);
    let crashes = 1;
    const stats = await t
      .poller({
        handler: async (event, context) => {
          const response = await t.handler(event, context);
          if (crashes-- > 0) throw new Error('died before answering');
          return response;
        },
      })
      .drain();
    expect(stats).toMatchObject({ invocations: 2, failedInvocations: 1, processed: 2 });
    // The transaction strategy finds a duplicate when it commits: the handler's writes are dropped, not applied again.
    expect(t.lines.at(-1)?.counts.duplicate).toBe(2);
    expect(await t.applied('r1#PAID')).toBe(1);
    expect(await t.applied('r2#PAID')).toBe(1);
  });

  it('claim: bisected halves of a completed batch are acknowledged through the idempotency record', async () => {
    const t = await setup('claim');
    for (const no of ['h1', 'h2', 'h3']) await t.write(no);
    let crashes = 1;
    const reports: StreamInvocationReport[] = [];
    await t
      .poller({
        handler: async (event, context) => {
          const response = await t.handler(event, context);
          if (crashes-- > 0) throw new Error('timed out after the work');
          return response;
        },
        bisectOnError: true,
        maxRetries: 0,
        onInvoke: (r) => reports.push(r),
      })
      .drain();
    expect(reports.map((r) => [r.outcome, r.sequenceNumbers.length])).toEqual([
      ['threw', 3],
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
    expect(t.runs).toEqual(['h1#PAID', 'h2#PAID', 'h3#PAID']);
    for (const no of ['h1', 'h2', 'h3']) expect(await t.applied(`${no}#PAID`)).toBe(1);
  });

  it('a record without a key fails alone and stops the shard there; the records before it are done', async () => {
    const t = await setup('transaction');
    await t.write('k1');
    await t.write(undefined, 'PAID', 'no-order-number');
    await t.write('k2');
    const reports: StreamInvocationReport[] = [];
    await t.poller({ maxRetries: 0, onInvoke: (r) => reports.push(r) }).drain();
    const sequence = reports[0]?.sequenceNumbers ?? [];
    expect(ids(t.responses[0])).toEqual(sequence.slice(1));
    expect(t.lines[0]?.records.find((r) => r.messageId === sequence[1])).toMatchObject({
      outcome: 'invalid',
      error: { name: 'MissingKeyError' },
    });
    expect(t.runs).toEqual(['k1#PAID']);
    expect(await t.applied('k2#PAID')).toBeUndefined();
  });

  it('one function on two tables: a failing stream stops, the other goes on', async () => {
    const failingTable = await setup('transaction');
    const other = await setup('transaction');
    await failingTable.write('f1');
    await failingTable.write('f2');
    await other.write('x1');
    await other.write('x2');
    failingTable.failing.set('f1#PAID', 5);
    await Promise.all([failingTable.poller({ maxRetries: 1 }).drain(), other.poller().drain()]);
    expect(failingTable.runs).toEqual(['f1#PAID', 'f1#PAID']);
    expect(other.runs).toEqual(['x1#PAID', 'x2#PAID']);
    expect(await other.applied('x2#PAID')).toBe(1);
    expect(await failingTable.applied('f2#PAID')).toBeUndefined();
  });
});
