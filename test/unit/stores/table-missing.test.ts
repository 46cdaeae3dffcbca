/**
 * Where a missing idempotency table was looked for, read from the client's
 * config whatever its shape (a provider, a plain value, one that throws,
 * none), never throwing while the error is built; and only the store's own
 * table is reported as missing. The real request path is proven on DynamoDB
 * Local in test/integration/table-not-found.test.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { IdempotencyTableNotFoundError } from '../../../src/engine/errors.js';
import { reportingMissingTable, tableLocation } from '../../../src/stores/dynamodb/table-missing.js';

const notFound = () => Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' });

/** A client by shape: `send` refuses every request on a table in `missing`; `config` as given. */
function fakeClient(missing: readonly string[], config: unknown): DynamoDBDocumentClient {
  const send = async (command: { input: Record<string, unknown> }) => {
    const named = JSON.stringify(command.input);
    if (missing.some((t) => named.includes(`"${t}"`))) throw notFound();
    return {};
  };
  return Object.freeze({ send, config }) as unknown as DynamoDBDocumentClient;
}

describe('tableLocation', () => {
  it('reads the region and endpoint of a real client, and of one whose settings are plain values, throwing providers or absent', async () => {
    const real = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1', endpoint: 'http://localhost:8000' }));
    expect(await tableLocation(real, 't')).toEqual({ tableName: 't', region: 'eu-west-1', endpoint: 'http://localhost:8000' });
    expect(await tableLocation({ config: { region: 'ap-south-1' } }, 't')).toEqual({
      tableName: 't',
      region: 'ap-south-1',
      endpoint: undefined,
    });
    const throwing = () => {
      throw new Error('no region');
    };
    expect(await tableLocation({ config: { region: throwing, endpoint: throwing } }, 't')).toEqual({
      tableName: 't',
      region: undefined,
      endpoint: undefined,
    });
    expect(await tableLocation({ config: { region: async () => Promise.reject(new Error('x')) } }, 't')).toMatchObject({
      region: undefined,
    });
    expect(await tableLocation({ send: () => undefined }, 't')).toEqual({ tableName: 't', region: undefined, endpoint: undefined });
    expect(await tableLocation(undefined, 't')).toEqual({ tableName: 't', region: undefined, endpoint: undefined });
  });
});

describe('reportingMissingTable', () => {
  it('turns ResourceNotFoundException on the store’s table into IdempotencyTableNotFoundError (cause kept), even on a frozen client', async () => {
    const client = reportingMissingTable(fakeClient(['idem'], { region: () => Promise.resolve('eu-west-1') }), 'idem');
    const thrown = await client.send(new GetCommand({ TableName: 'idem', Key: { id: 'a' } })).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(IdempotencyTableNotFoundError);
    expect(thrown).toMatchObject({ tableName: 'idem', region: 'eu-west-1', cause: { name: 'ResourceNotFoundException' } });
    expect((thrown as Error).message).toMatch(
      /^The idempotency table "idem" does not exist \(region eu-west-1\): create it with `npx effectively-once table create --table idem --region eu-west-1`/,
    );
  });

  it('without a region the message says so; another table’s ResourceNotFoundException stays as it is', async () => {
    const client = reportingMissingTable(fakeClient(['idem', 'orders'], {}), 'idem');
    const ours = await client.send(new PutCommand({ TableName: 'idem', Item: { id: 'a' } })).catch((e: unknown) => e);
    expect((ours as Error).message).toContain('(the client has no region)');
    const theirs = await client.send(new PutCommand({ TableName: 'orders', Item: { pk: 'a' } })).catch((e: unknown) => e);
    expect(theirs).toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('a transaction over both tables: the idempotency table is blamed only when a read of it is refused too', async () => {
    const tx = new TransactWriteCommand({
      TransactItems: [{ Put: { TableName: 'idem', Item: { id: 'a' } } }, { Put: { TableName: 'orders', Item: { pk: 'a' } } }],
    });
    const oursMissing = reportingMissingTable(fakeClient(['idem'], {}), 'idem');
    expect(await oursMissing.send(tx).catch((e: unknown) => e)).toBeInstanceOf(IdempotencyTableNotFoundError);
    const theirsMissing = reportingMissingTable(fakeClient(['orders'], {}), 'idem');
    expect(await theirsMissing.send(tx).catch((e: unknown) => e)).toMatchObject({ name: 'ResourceNotFoundException' });
  });
});
