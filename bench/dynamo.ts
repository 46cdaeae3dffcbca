/**
 * The bench's DynamoDB: DynamoDB Local (started here, or borrowed from
 * DYNAMODB_ENDPOINT), fresh tables per variant, counted clients, and the
 * untimed seeding of the orders the state-machine variants update.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/dynamodb-local.js';
import { createTable, tableDefinitions, type TableDefinition } from '../infra/tables.js';
import { countRequests, type RequestCounter } from './counter.js';
import { addLatency, addLatencyFloor } from './latency.js';
import { seededRandom } from './random.js';
import type { OrderPaid } from './workload.js';

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

/** Which idempotency table a variant needs. */
export type IdempotencyTableKind = 'ours' | 'powertools' | 'none';
/** Which business table: customer points (`pk`) or orders (`orderNo`), both from `infra/tables.json`. */
export type BusinessTableKind = 'points' | 'orders';

/** The tables of one variant (unique names, so a borrowed endpoint never mixes runs). */
export interface VariantTables {
  readonly idempotency: string | undefined;
  readonly business: string;
}

/** A low-level client with its own counter, and a DocumentClient on top of it. */
export interface CountedClient {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  readonly counter: RequestCounter;
}

/** How every variant's client is set up. */
export interface ClientOptions {
  /** Added before every request (`--latency`). */
  readonly latencyMs: number;
  /** Ask for and sum consumed capacity (`--units`). */
  readonly units: boolean;
  /** `--aws`: the latency floor, drawn from a generator with this seed, and the billed units counted from each request. */
  readonly aws?: { readonly seed: number };
  /** Count billed units from each request (aws-units.ts) even without the latency floor (the `--memory` sweep's $ without `--aws`). */
  readonly billedUnits?: boolean;
}

function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

function docFor(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** A fresh low-level client (own middleware stack) with a request counter and the run's added latency. */
export function countedClient(endpoint: string, options: ClientOptions = { latencyMs: 0, units: false }): CountedClient {
  const client = localClient(endpoint);
  const counter = countRequests(client, { units: options.units, awsUnits: options.aws !== undefined || options.billedUnits === true });
  addLatency(client, options.latencyMs);
  if (options.aws !== undefined) addLatencyFloor(client, seededRandom(options.aws.seed));
  return { client, doc: docFor(client), counter };
}

const idempotencyDefinitions: Record<Exclude<IdempotencyTableKind, 'none'>, TableDefinition> = {
  ours: oursTableDefinition,
  powertools: powertoolsTableDefinition,
};

/**
 * A business table as `infra/tables.json` has it, without its stream: the
 * reference service streams the orders table to its outbox relay, and
 * DynamoDB Local spends CPU on every streamed write, which is not what the
 * bench compares (no variant reads a stream).
 */
function businessTableDefinition(kind: BusinessTableKind): TableDefinition {
  const { StreamSpecification: _stream, ...rest } = tableDefinitions[kind] as TableDefinition & { StreamSpecification?: unknown };
  return rest;
}

/** Creates a variant's fresh tables, named `bench-<run>-<variant>-<role>`. */
export async function createVariantTables(
  endpoint: string,
  name: string,
  kinds: { readonly idempotency: IdempotencyTableKind; readonly business: BusinessTableKind },
): Promise<VariantTables> {
  const admin = localClient(endpoint);
  try {
    let idempotency: string | undefined;
    if (kinds.idempotency !== 'none') {
      idempotency = `${name}-idempotency`;
      await createTable(admin, idempotency, idempotencyDefinitions[kinds.idempotency]);
    }
    const business = `${name}-${kinds.business}`;
    await createTable(admin, business, businessTableDefinition(kinds.business));
    return { idempotency, business };
  } finally {
    admin.destroy();
  }
}

/** BatchWriteItem's limit. */
const WRITE_BATCH = 25;

/** Puts every order as PENDING, version 0, with an uncounted client: set-up, not measured. */
export async function seedPendingOrders(endpoint: string, table: string, events: readonly OrderPaid[]): Promise<void> {
  const client = localClient(endpoint);
  const doc = docFor(client);
  try {
    for (let i = 0; i < events.length; i += WRITE_BATCH) {
      let requests: Record<string, Array<{ PutRequest: { Item: Record<string, unknown> } }>> | undefined = {
        [table]: events
          .slice(i, i + WRITE_BATCH)
          .map((e) => ({ PutRequest: { Item: { orderNo: e.orderNo, customerId: e.customerId, status: 'PENDING', version: 0 } } })),
      };
      while (requests !== undefined && Object.keys(requests).length > 0) {
        const out = await doc.send(new BatchWriteCommand({ RequestItems: requests }));
        requests = out.UnprocessedItems as typeof requests;
      }
    }
  } finally {
    client.destroy();
  }
}

/** Every item of `table` (consistent scan, all pages), with an uncounted client. */
export async function scanAll(endpoint: string, table: string): Promise<Array<Record<string, unknown>>> {
  const client = localClient(endpoint);
  const doc = docFor(client);
  const items: Array<Record<string, unknown>> = [];
  try {
    let start: Record<string, unknown> | undefined;
    do {
      const out = await doc.send(
        new ScanCommand({ TableName: table, ConsistentRead: true, ...(start === undefined ? {} : { ExclusiveStartKey: start }) }),
      );
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start !== undefined);
    return items;
  } finally {
    client.destroy();
  }
}
