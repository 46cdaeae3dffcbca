import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemSize, numberSize, readUnits, requestUnits, writeUnits, type ObservedRequest } from '../../../bench/aws-units.js';
import { countRequests } from '../../../bench/counter.js';

const s = (text: string) => ({ S: text });
/** An item of exactly `bytes` bytes: attribute `pk` (2 bytes of name) holding a string. */
const sized = (bytes: number) => ({ pk: s('x'.repeat(bytes - 2)) });
const put = (item: object, more: Partial<ObservedRequest> = {}): ObservedRequest => ({
  commandName: 'PutItemCommand',
  input: { TableName: 't', Item: item },
  output: {},
  ...more,
});
const refused = (item?: object) =>
  Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException', Item: item });

describe('item sizes', () => {
  it('counts names and values as DynamoDB does', () => {
    expect(itemSize({ ab: s('xyz') })).toBe(5);
    expect(numberSize('123.45')).toBe(4); // 5 significant digits: 3 bytes + 1
    expect(numberSize('1000')).toBe(2);
    expect(itemSize({ n: { N: '1' }, b: { BOOL: true }, l: { L: [s('ab'), { N: '7' }] } })).toBe(1 + 2 + 1 + 1 + 1 + (3 + 1 + 2 + 1 + 2));
    expect(itemSize({ m: { M: { k: s('v') } } })).toBe(1 + 3 + 1 + 1 + 1);
  });

  it('sizes plain values (what the DocumentClient hands back) like the attribute values they stand for', () => {
    expect(itemSize({ pk: 'abc', n: 12345, ok: true, tags: ['a', 'b'] })).toBe(
      itemSize({ pk: s('abc'), n: { N: '12345' }, ok: { BOOL: true }, tags: { L: [s('a'), s('b')] } }),
    );
  });
});

describe('write units', () => {
  it('bills 1 WRU per started KB', () => {
    expect(writeUnits(0)).toBe(1);
    expect(requestUnits(put(sized(1024)))).toEqual({ wru: 1, rru: 0 });
    expect(requestUnits(put(sized(1025)))).toEqual({ wru: 2, rru: 0 });
    expect(requestUnits(put(sized(3000)))).toEqual({ wru: 3, rru: 0 });
  });

  it('bills a Put for the larger of the new item and the old one it returned', () => {
    expect(requestUnits(put(sized(100), { output: { Attributes: sized(1500) } })).wru).toBe(2);
  });

  it('bills an update by the item it returned, else by its key and values', () => {
    const update = (more: Partial<ObservedRequest>): ObservedRequest => ({
      commandName: 'UpdateItemCommand',
      input: { Key: { pk: s('k') }, ExpressionAttributeValues: { ':v': s('x'.repeat(1100)) } },
      output: {},
      ...more,
    });
    expect(requestUnits(update({})).wru).toBe(2);
    expect(requestUnits(update({ output: { Attributes: sized(2100) } })).wru).toBe(3);
  });

  it('charges a refused conditional write: the existing item where returned, else 1', () => {
    expect(requestUnits(put(sized(100), { output: undefined, error: refused() }))).toEqual({ wru: 1, rru: 0 });
    expect(requestUnits(put(sized(100), { output: undefined, error: refused(sized(1500)) }))).toEqual({ wru: 2, rru: 0 });
    const deleteRefused: ObservedRequest = { commandName: 'DeleteItemCommand', input: { Key: { pk: s('k') } }, error: refused() };
    expect(requestUnits(deleteRefused).wru).toBe(1);
  });

  it('bills nothing for other failures', () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    expect(requestUnits(put(sized(100), { output: undefined, error: throttled }))).toEqual({ wru: 0, rru: 0 });
    expect(requestUnits({ commandName: 'DescribeTableCommand', input: {}, output: {} })).toEqual({ wru: 0, rru: 0 });
  });

  it('bills transactional writes twice per item, ConditionCheck included', () => {
    const tx: ObservedRequest = {
      commandName: 'TransactWriteItemsCommand',
      input: {
        TransactItems: [
          { Put: { Item: sized(1500) } },
          { Update: { Key: { pk: s('c') }, ExpressionAttributeValues: { ':p': { N: '5' } } } },
          { ConditionCheck: { Key: { pk: s('d') } } },
          { Delete: { Key: { pk: s('e') } } },
        ],
      },
      output: {},
    };
    expect(requestUnits(tx)).toEqual({ wru: 2 * 2 + 2 + 2 + 2, rru: 0 });
    const cancelled = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: sized(2500) }, { Code: 'None' }, { Code: 'None' }, { Code: 'None' }],
    });
    // Cancelled: charged as committed (2x), the first item at the size of the existing one it returned.
    expect(requestUnits({ ...tx, output: undefined, error: cancelled })).toEqual({ wru: 2 * 3 + 2 + 2 + 2, rru: 0 });
  });

  it('bills each statement of a BatchExecuteStatement: written, refused (DuplicateItem and failed conditions alike), not other errors', () => {
    const statement = { Statement: 'INSERT INTO "t" VALUE {\'pk\': ?}', Parameters: [s('x'.repeat(1500))] };
    const r: ObservedRequest = {
      commandName: 'BatchExecuteStatementCommand',
      input: { Statements: [statement, statement, statement, statement, statement] },
      output: {
        Responses: [
          {},
          { Error: { Code: 'DuplicateItem' } },
          { Error: { Code: 'ConditionalCheckFailed', Item: sized(2500) } },
          { Error: { Code: 'ThrottlingError' } },
          { Item: sized(3000) }, // an UPDATE ... RETURNING ALL NEW *: the item it wrote
        ],
      },
    };
    // Refusals by the existing item (none returned: the minimum), not by the statement's own values.
    expect(requestUnits(r)).toEqual({ wru: 2 + 1 + 3 + 0 + 3, rru: 0 });
  });

  it('bills the processed writes of a BatchWriteItem', () => {
    const batch: ObservedRequest = {
      commandName: 'BatchWriteItemCommand',
      input: { RequestItems: { t: [{ PutRequest: { Item: sized(2000) } }, { DeleteRequest: { Key: { pk: s('k') } } }] } },
      output: { UnprocessedItems: { t: [{ DeleteRequest: { Key: { pk: s('k') } } }] } },
    };
    expect(requestUnits(batch).wru).toBe(2);
  });
});

describe('read units', () => {
  it('bills per started 4 KB: half eventually consistent, full strongly consistent, twice transactional', () => {
    expect(readUnits(100, 'eventual')).toBe(0.5);
    expect(readUnits(4096, 'strong')).toBe(1);
    expect(readUnits(4097, 'strong')).toBe(2);
    expect(readUnits(100, 'transactional')).toBe(2);
    const get = (consistent: boolean, item: object | undefined): ObservedRequest => ({
      commandName: 'GetItemCommand',
      input: { Key: { pk: s('k') }, ConsistentRead: consistent },
      output: item === undefined ? {} : { Item: item },
    });
    expect(requestUnits(get(false, sized(100))).rru).toBe(0.5);
    expect(requestUnits(get(true, sized(5000))).rru).toBe(2);
    expect(requestUnits(get(true, undefined)).rru).toBe(1); // a miss costs the minimum
  });

  it('rounds each item of a BatchGetItem and every key that found nothing', () => {
    const keys = Array.from({ length: 10 }, (_, i) => ({ pk: s(`k${i}`) }));
    const batch: ObservedRequest = {
      commandName: 'BatchGetItemCommand',
      input: { RequestItems: { t: { Keys: keys, ConsistentRead: true } } },
      output: { Responses: { t: [sized(5000), sized(10), sized(10)] }, UnprocessedKeys: { t: { Keys: keys.slice(0, 2) } } },
    };
    // 3 found (2 + 1 + 1) and 5 misses at the minimum; 2 unprocessed, not billed.
    expect(requestUnits(batch).rru).toBe(2 + 1 + 1 + 5);
  });

  it('rounds the total of a Query once and bills transactional gets twice', () => {
    const query: ObservedRequest = { commandName: 'QueryCommand', input: {}, output: { Items: [sized(3000), sized(3000)] } };
    expect(requestUnits(query).rru).toBe(1); // 6000 bytes: 2 blocks, eventually consistent
    const tget: ObservedRequest = {
      commandName: 'TransactGetItemsCommand',
      input: { TransactItems: [{}, {}] },
      output: { Responses: [{ Item: sized(10) }, {}] },
    };
    expect(requestUnits(tget).rru).toBe(4);
  });
});

/** A client whose HTTP answers are canned JSON bodies, so the counter sees real commands without a server. */
function cannedClient(answers: Array<{ status: number; body: object; type?: string }>): DynamoDBClient {
  let i = 0;
  return new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts: 1,
    requestHandler: {
      handle: async () => {
        const answer = answers[i++] ?? { status: 200, body: {} };
        const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
        if (answer.type !== undefined) headers['x-amzn-errortype'] = answer.type;
        return { response: { statusCode: answer.status, headers, body: new TextEncoder().encode(JSON.stringify(answer.body)) } };
      },
    },
  });
}

describe('counting through the client', () => {
  it('counts the same units for DocumentClient and low-level commands, refusals included, outside the handler call', async () => {
    const big = 'x'.repeat(5000);
    const client = cannedClient([
      { status: 200, body: {} },
      { status: 200, body: {} },
      { status: 200, body: { Item: { pk: { S: 'k' }, data: { S: big } } } },
      { status: 200, body: { Item: { pk: { S: 'k' }, data: { S: big } } } },
      {
        status: 400,
        type: 'ConditionalCheckFailedException',
        body: { __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException', message: 'failed' },
      },
    ]);
    const counter = countRequests(client, { units: false, awsUnits: true });
    const doc = DynamoDBDocumentClient.from(client);
    await doc.send(new PutCommand({ TableName: 't', Item: { pk: 'k', data: 'x'.repeat(1500) } }));
    await client.send(new PutItemCommand({ TableName: 't', Item: { pk: { S: 'k' }, data: { S: 'x'.repeat(1500) } } }));
    await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'k' }, ConsistentRead: true }));
    await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'k' } } }));
    await expect(
      doc.send(new PutCommand({ TableName: 't', Item: { pk: 'k' }, ConditionExpression: 'attribute_not_exists(pk)' })),
    ).rejects.toThrow();
    const tally = counter.take();
    expect(tally.requests).toEqual({ PutItemCommand: 3, GetItemCommand: 2 });
    // 2 + 2 WRU for the puts, 1 for the refusal; 5 KB read: 2 strongly consistent, 1 eventually consistent.
    expect(tally.wru).toBe(5);
    expect(tally.rru).toBe(3);
    expect(counter.take().wru).toBe(0);
    client.destroy();
  });
});
