/**
 * How a commit refused for an outbox item's key is worded (src/stores/dynamodb/outbox-keys.ts),
 * with a fake client: the table's key schema read on that refusal only, and
 * what the error says when it cannot be read. The real refusal is tested on
 * DynamoDB Local in test/integration/outbox/tx-outbox.test.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { outboxKeyMissing } from '../../../src/stores/dynamodb/outbox-keys.js';
import type { TransactItem } from '../../../src/engine/store.js';

const refusal = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });

const items: TransactItem[] = [
  { Put: { TableName: 'idempotency', Item: { id: 'c#k', status: 'COMPLETED' } } },
  { Update: { TableName: 'orders', Key: { pk: 'order#1' }, UpdateExpression: 'SET #s = :s' } },
  { Put: { TableName: 'orders', Item: { pk: 'outbox#1', outboxId: 'outbox#1' } } },
];

function client(answer: () => unknown): { client: DynamoDBDocumentClient; sent: string[] } {
  const sent: string[] = [];
  const fake = {
    send: async (command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      return answer();
    },
  };
  return { client: fake as unknown as DynamoDBDocumentClient, sent };
}

const sortKeySchema = () => ({
  Table: {
    KeySchema: [
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ],
  },
});

describe('outboxKeyMissing', () => {
  it('names the table and the missing attribute, read from the table’s key schema', async () => {
    const { client: c, sent } = client(sortKeySchema);
    const error = await outboxKeyMissing(c, refusal('ValidationException', 'One of the required keys was not given a value'), items);
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toContain('table "orders" has the key attribute "sk"');
    expect(sent).toEqual(['DescribeTableCommand']);
  });

  it('reads a cancellation that names the outbox Put as invalid the same way', async () => {
    const { client: c } = client(sortKeySchema);
    const reasons = [{ Code: 'None' }, { Code: 'None' }, { Code: 'ValidationError', Message: 'key' }];
    const error = await outboxKeyMissing(c, refusal('TransactionCanceledException', 'cancelled', { CancellationReasons: reasons }), items);
    expect(error?.message).toContain('"sk"');
  });

  it('without permission to describe the table, still names the table and the option', async () => {
    const { client: c } = client(() => {
      throw refusal('AccessDeniedException', 'not authorized to perform: dynamodb:DescribeTable');
    });
    const error = await outboxKeyMissing(c, refusal('ValidationException', 'One of the required keys was not given a value'), items);
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toContain('table "orders"');
    expect(error?.message).toContain('sortKeyAttribute');
  });

  it('leaves other refusals alone, without a request: no outbox item, a duplicate, an item with its keys', async () => {
    const { client: c, sent } = client(sortKeySchema);
    const duplicate = refusal('TransactionCanceledException', 'cancelled', {
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }, { Code: 'None' }],
    });
    expect(await outboxKeyMissing(c, duplicate, items)).toBeUndefined();
    expect(await outboxKeyMissing(c, refusal('ValidationException', 'bad'), items.slice(0, 2))).toBeUndefined();
    expect(sent).toEqual([]);
    const complete: TransactItem[] = [{ Put: { TableName: 'orders', Item: { pk: 'outbox#1', sk: 'outbox#1', outboxId: 'outbox#1' } } }];
    expect(await outboxKeyMissing(c, refusal('ValidationException', 'Item size has exceeded the maximum'), complete)).toBeUndefined();
  });
});
