/**
 * The switch from Powertools on DynamoDB Local: Powertools' table (as its docs define it), ours, and a table of
 * effects counted per business key (`ADD n 1`, so a second application shows). Powertools' real 2.35.0 handlers
 * write to its table; ours read it through `powertoolsRecords()` with a DocumentClient of their own, whose requests
 * to Powertools' table are counted.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../infra/dynamodb-local.js';
import { tableDefinitions, type TableDefinition } from '../../../infra/tables.js';
import { ManualClock } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';

/** Powertools' idempotency table as its docs describe it (DynamoDBPersistenceLayer defaults). */
export const powertoolsTable: TableDefinition = {
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  BillingMode: 'PAY_PER_REQUEST',
};

/** The name of the function Powertools ran in, and ours after the switch (the same function, new code). */
export const FUNCTION_NAME = 'orders-consumer';

export interface CutoverRig {
  /** Low-level client (Powertools takes one). */
  readonly client: DynamoDBClient;
  /** The DocumentClient of our store and of the effects. */
  readonly doc: DynamoDBDocumentClient;
  /** A DocumentClient of its own for `powertoolsRecords()`: its requests to Powertools' table are counted. */
  readonly previousDoc: DynamoDBDocumentClient;
  readonly powertoolsTable: string;
  readonly oursTable: string;
  readonly effectsTable: string;
  /** Our side's clock, started at the real time (Powertools writes real times). */
  readonly clock: ManualClock;
  /** Requests `previousDoc` sent to Powertools' table so far. */
  powertoolsReads(): number;
  /** Applies the effect of `key` once more. */
  effect(key: string): Promise<void>;
  /** How many times each key's effect was applied. */
  effects(): Promise<Record<string, number>>;
  /** Powertools' item for an idempotency key. */
  powertoolsItem(id: string): Promise<Record<string, unknown> | undefined>;
}

export async function cutoverRig(definition: TableDefinition = powertoolsTable): Promise<CutoverRig> {
  const { client, doc } = testDynamo();
  const [pt, ours, effects] = await Promise.all([
    freshTable(client, definition, 'powertools'),
    freshTable(client, tableDefinitions.idempotency, 'ours'),
    freshTable(client, businessTable, 'effects'),
  ]);
  const counted = new DynamoDBClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  let reads = 0;
  counted.middlewareStack.add(
    (next) => async (args) => {
      if ((args.input as { TableName?: string }).TableName === pt) reads += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countPowertoolsReads' },
  );
  return {
    client,
    doc,
    previousDoc: DynamoDBDocumentClient.from(counted),
    powertoolsTable: pt,
    oursTable: ours,
    effectsTable: effects,
    clock: new ManualClock(Date.now()),
    powertoolsReads: () => reads,
    async effect(key) {
      const add = { TableName: effects, Key: { pk: key }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } };
      await doc.send(new UpdateCommand(add));
    },
    async effects() {
      const { Items = [] } = await doc.send(new ScanCommand({ TableName: effects, ConsistentRead: true }));
      return Object.fromEntries(Items.map((i) => [i['pk'] as string, i['n'] as number]));
    },
    async powertoolsItem(id) {
      return (await doc.send(new GetCommand({ TableName: pt, Key: { id }, ConsistentRead: true }))).Item;
    },
  };
}

/** Runs `build` with `AWS_LAMBDA_FUNCTION_NAME` set, as in the function, and puts the variable back. */
export function inFunction<T>(build: () => T, name = FUNCTION_NAME): T {
  const before = process.env['AWS_LAMBDA_FUNCTION_NAME'];
  process.env['AWS_LAMBDA_FUNCTION_NAME'] = name;
  try {
    return build();
  } finally {
    if (before === undefined) delete process.env['AWS_LAMBDA_FUNCTION_NAME'];
    else process.env['AWS_LAMBDA_FUNCTION_NAME'] = before;
  }
}
