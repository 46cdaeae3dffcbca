/**
 * What the outbox relay's tests share: a stream-enabled outbox table filled
 * by real transactions and read back from DynamoDB Local's stream, and a
 * recording EventBridge (EventBridge has no local server).
 */
import type { PutEventsCommand, PutEventsCommandOutput, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { transaction } from '../../../src/index.js';
import type { TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { readStream } from '../../../scripts/local/dynamodb-stream.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { harness, order } from '../sqs/harness.js';

export const streamTable = { ...businessTable, StreamSpecification: { StreamViewType: 'NEW_IMAGE' } };

/** A recording EventBridge: `refuse(entry, attempt)` says whether to refuse an entry on its nth sight. */
export function fakeEventBridge(refuse: (entry: PutEventsRequestEntry, seen: number) => boolean = () => false) {
  const calls: PutEventsRequestEntry[][] = [];
  const published: PutEventsRequestEntry[] = [];
  const seen = new Map<string, number>();
  const client = {
    async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
      const entries = command.input.Entries ?? [];
      calls.push(entries);
      const answers = entries.map((entry, i) => {
        const n = (seen.get(entry.Detail ?? '') ?? 0) + 1;
        seen.set(entry.Detail ?? '', n);
        if (refuse(entry, n)) return { ErrorCode: 'InternalFailure', ErrorMessage: 'refused' };
        published.push(entry);
        return { EventId: `event-${calls.length}-${i}` };
      });
      return { $metadata: {}, FailedEntryCount: answers.filter((a) => 'ErrorCode' in a).length, Entries: answers };
    },
  };
  return { client, calls, published };
}

export async function setup(keys: readonly string[]) {
  const h = await harness();
  const { client, doc } = testDynamo();
  const orders = await freshTable(client, streamTable, 'outbox');
  const emit: TransactionRecordHandler = (_r, { key, tx }) => {
    tx.outbox({ source: 'shop', detailType: 'OrderPaid', detail: { orderNo: key } }, { tableName: orders });
  };
  // An ordinary item of the same table: its INSERT is not the relay's business.
  await doc.send(new PutCommand({ TableName: orders, Item: { pk: 'order#x', status: 'PENDING' } }));
  await h.txHandler(emit, { strategy: transaction() })(sqsEvent(keys.map((k) => order(k))), h.context());
  const event = await readStream(client, orders);
  const items = async () =>
    (await doc.send(new ScanCommand({ TableName: orders }))).Items?.filter((i) => i['outboxId'] !== undefined) ?? [];
  return { doc, orders, event, items };
}

export const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
export const detailOf = (entry: PutEventsRequestEntry) => JSON.parse(entry.Detail ?? '{}') as { orderNo: string; outboxId: string };
export const sequenceNumbers = (event: DynamoDBStreamEvent) => event.Records.map((r) => r.dynamodb?.SequenceNumber ?? '');
export const outboxRecordIndex = (event: DynamoDBStreamEvent, orderNo: string) =>
  event.Records.findIndex((r) => r.dynamodb?.NewImage?.['detail']?.S?.includes(`"orderNo":"${orderNo}"`));
