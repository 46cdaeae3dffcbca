/**
 * The bench's DynamoDB: DynamoDB Local (started here, or borrowed from
 * DYNAMODB_ENDPOINT), the tables both contenders need, and counted clients.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION, startDynamoDBLocal, type DynamoDBLocalHandle } from '../infra/dynamodb-local.js';
import { createTable, tableDefinitions, type TableDefinition } from '../infra/tables.js';
import { countRequests, type RequestCounter } from './counter.js';

/** Table names of one bench run (unique, so a borrowed endpoint is never polluted by an earlier run). */
export interface BenchTables {
  /** Ours: `infra/tables.json` idempotency schema without the optional sweeper index. */
  readonly ours: string;
  /** Powertools: its documented schema, partition key `id`, TTL attribute `expiration`. */
  readonly powertools: string;
  /** Business items written by the transaction scenario (both sides). */
  readonly business: string;
}

/**
 * Ours as a team without the sweeper creates it: `infra/tables.json` minus
 * the optional sparse index (with `trackInflight` off nothing is written to
 * it, but DynamoDB Local still spends CPU on every write to an indexed table).
 */
export const oursTableDefinition: TableDefinition = (() => {
  const { GlobalSecondaryIndexes: _index, ...rest } = tableDefinitions.idempotency;
  const keys = new Set(rest.KeySchema.map((k) => k.AttributeName));
  return { ...rest, AttributeDefinitions: rest.AttributeDefinitions.filter((a) => keys.has(a.AttributeName)) };
})();

/** Powertools' idempotency table as its docs describe it (DynamoDBPersistenceLayer defaults). */
export const powertoolsTableDefinition: TableDefinition = {
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  BillingMode: 'PAY_PER_REQUEST',
  TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
};

/** A low-level client with its own counter, and a DocumentClient on top of it. */
export interface CountedClient {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  readonly counter: RequestCounter;
}

/** A fresh low-level client (own middleware stack) with a request counter. */
export function countedClient(endpoint: string): CountedClient {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const counter = countRequests(client);
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc, counter };
}

/** A running endpoint plus the run's tables. */
export interface BenchDynamo {
  readonly local: DynamoDBLocalHandle;
  readonly tables: BenchTables;
}

/** Starts (or borrows) DynamoDB Local and creates the run's tables. */
export async function setUpDynamo(): Promise<BenchDynamo> {
  const local = await startDynamoDBLocal();
  const run = randomUUID().slice(0, 8);
  const tables: BenchTables = {
    ours: `bench-ours-${run}`,
    powertools: `bench-powertools-${run}`,
    business: `bench-business-${run}`,
  };
  const admin = new DynamoDBClient({ endpoint: local.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await createTable(admin, tables.ours, oursTableDefinition);
    await createTable(admin, tables.powertools, powertoolsTableDefinition);
    await createTable(admin, tables.business, tableDefinitions.points);
  } catch (err) {
    await local.stop();
    throw err;
  } finally {
    admin.destroy();
  }
  return { local, tables };
}
