/**
 * Red-team scenarios for `tx.outbox()` on DynamoDB Local: two events under
 * one name in one record, details that are not a JSON object once
 * serialised, and outbox items of two records in one group commit.
 */
import type { PutEventsCommand, PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxRelay, transaction } from '../../../src/index.js';
import { TransactionBuilder } from '../../../src/strategies/transaction/builder.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { readStream } from '../../../scripts/local/dynamodb-stream.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order } from '../sqs/harness.js';

const streamTable = { ...businessTable, StreamSpecification: { StreamViewType: 'NEW_IMAGE' } };

async function setup() {
  const h = await harness();
  const { client, doc } = testDynamo();
  const orders = await freshTable(client, streamTable, 'orders');
  const outboxItems = async () =>
    ((await doc.send(new ScanCommand({ TableName: orders }))).Items ?? []).filter((i) => i['outboxId'] !== undefined);
  return { h, orders, outboxItems };
}

const event = { source: 'shop', detailType: 'OrderPaid', detail: { orderNo: 'o' } };

describe('tx.outbox() red team', () => {
  it('a second event under the same name in one record is refused by tx.outbox() itself, naming the option to set', async () => {
    const { h, orders, outboxItems } = await setup();
    let thrown: unknown;
    const handler = h.txHandler(
      (_r, { tx }) => {
        tx.outbox(event, { tableName: orders });
        try {
          tx.outbox({ ...event, detail: { orderNo: 'other' } }, { tableName: orders });
        } catch (error) {
          thrown = error;
          throw error;
        }
      },
      { strategy: transaction() },
    );
    expect(failedIds(await handler(sqsEvent([order('o1')]), h.context()))).toHaveLength(1);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(String(thrown)).toMatch(/tx\.outbox\(\).*"OrderPaid".*name/);
    expect(await outboxItems()).toEqual([]);
  });

  it('two events with distinct names in one record both commit', async () => {
    const { h, orders, outboxItems } = await setup();
    const handler = h.txHandler(
      (_r, { tx }) => {
        tx.outbox(event, { tableName: orders });
        tx.outbox(event, { tableName: orders, name: 'second' });
      },
      { strategy: transaction() },
    );
    expect(failedIds(await handler(sqsEvent([order('o2')]), h.context()))).toEqual([]);
    expect(await outboxItems()).toHaveLength(2);
  });

  it('two records of one group commit, each with its outbox item', async () => {
    const { h, orders, outboxItems } = await setup();
    const emit: TransactionRecordHandler = (_r, { key, tx }) =>
      void tx.outbox({ ...event, detail: { orderNo: key } }, { tableName: orders });
    const handler = h.txHandler(emit, { strategy: transaction() });
    expect(failedIds(await handler(sqsEvent([order('g1'), order('g2'), order('g3')]), h.context()))).toEqual([]);
    const details = (await outboxItems()).map((i) => (JSON.parse(String(i['detail'])) as { orderNo: string }).orderNo).sort();
    expect(details).toEqual(['g1', 'g2', 'g3']);
  });

  it('a detail that does not serialise to a JSON object is a TypeError naming tx.outbox(), written nowhere', () => {
    const tx = new TransactionBuilder({ consumer: 'c', businessKey: 'k' });
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const bad: Array<Record<string, unknown>> = [{ n: 1n }, circular, { toJSON: () => 'text' }, { toJSON: () => [1, 2] }];
    for (const detail of bad) {
      expect(() => tx.outbox({ ...event, detail }, { tableName: 't' })).toThrow(/tx\.outbox\(\).*detail/);
    }
    expect(tx.size).toBe(0);
  });
});

describe('outboxRelay() red team', () => {
  it('an ordinary item of the table that unmarshall cannot read (a number beyond 2^53) does not stop the relay', async () => {
    const { h, orders } = await setup();
    const { client, doc } = testDynamo();
    await client.send(
      new PutItemCommand({ TableName: orders, Item: { pk: { S: 'order#big' }, total: { N: '123456789012345678901234567890' } } }),
    );
    const emit: TransactionRecordHandler = (_r, { key, tx }) =>
      void tx.outbox({ ...event, detail: { orderNo: key } }, { tableName: orders });
    expect(failedIds(await h.txHandler(emit, { strategy: transaction() })(sqsEvent([order('r1')]), h.context()))).toEqual([]);
    const stream = await readStream(client, orders);
    expect(stream.Records).toHaveLength(2);
    const published: string[] = [];
    const eventBridge = {
      send: async (command: PutEventsCommand): Promise<PutEventsCommandOutput> => {
        const entries = command.input.Entries ?? [];
        published.push(...entries.map((e) => e.Detail ?? ''));
        return { $metadata: {}, FailedEntryCount: 0, Entries: entries.map((_e, i) => ({ EventId: `e${i}` })) };
      },
    };
    expect(await outboxRelay({ eventBridge, client: doc })(stream)).toEqual({ batchItemFailures: [] });
    expect(published.map((d) => (JSON.parse(d) as { orderNo: string }).orderNo)).toEqual(['r1']);
  });
});

describe('outboxRelay() on a stream without new images', () => {
  for (const view of ['KEYS_ONLY', 'OLD_IMAGE'] as const) {
    it(`${view}: an INSERT it cannot read is never acknowledged unpublished: the relay refuses the event, naming the view type`, async () => {
      const h = await harness();
      const { client, doc } = testDynamo();
      const orders = await freshTable(client, { ...businessTable, StreamSpecification: { StreamViewType: view } }, 'orders');
      const emit: TransactionRecordHandler = (_r, { key, tx }) =>
        void tx.outbox({ ...event, detail: { orderNo: key } }, { tableName: orders });
      expect(failedIds(await h.txHandler(emit, { strategy: transaction() })(sqsEvent([order('v1')]), h.context()))).toEqual([]);
      const stream = await readStream(client, orders);
      expect(stream.Records).toHaveLength(1);
      let sent = 0;
      const eventBridge = {
        send: async (): Promise<PutEventsCommandOutput> => {
          sent += 1;
          return { $metadata: {}, FailedEntryCount: 0, Entries: [{ EventId: 'e' }] };
        },
      };
      await expect(outboxRelay({ eventBridge, client: doc })(stream)).rejects.toThrow(/outboxRelay.*NEW_IMAGE/);
      expect(sent).toBe(0);
      expect((await outboxItems(doc, orders))[0]?.['outboxStatus']).toBe('PENDING');
    });
  }
});

async function outboxItems(doc: ReturnType<typeof testDynamo>['doc'], table: string) {
  return ((await doc.send(new ScanCommand({ TableName: table }))).Items ?? []).filter((i) => i['outboxId'] !== undefined);
}
