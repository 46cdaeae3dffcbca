/**
 * The service's tables on DynamoDB Local, created from `infra/tables.json`
 * under a per-run prefix (so runs can share one DynamoDB Local, as the tests
 * do), and the seeding of the orders to pay.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createTable, tableDefinitions } from '../../infra/tables.js';
import type { SeedOrder } from './workload.js';

/** Table names of one run. */
export interface LocalTables {
  readonly idempotency: string;
  readonly orders: string;
  readonly points: string;
}

/** Creates the three tables (with TTL and the sparse index) and returns their names. */
export async function createLocalTables(client: DynamoDBClient, prefix: string): Promise<LocalTables> {
  const names: LocalTables = {
    idempotency: `${prefix}-idempotency`,
    orders: `${prefix}-orders`,
    points: `${prefix}-points`,
  };
  await Promise.all([
    createTable(client, names.idempotency, tableDefinitions.idempotency),
    createTable(client, names.orders, tableDefinitions.orders),
    createTable(client, names.points, tableDefinitions.points),
  ]);
  return names;
}

const BATCH = 25; // BatchWriteItem's limit

/** The orders table item the payments function transitions (version 1: one transition makes it 2). */
function orderItem(order: SeedOrder): Record<string, unknown> {
  return { ...order, version: 1 };
}

async function writeBatch(doc: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]): Promise<void> {
  let requests: unknown[] = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; requests.length > 0; attempt++) {
    if (attempt > 10) throw new Error(`Seeding ${table}: items stayed unprocessed after 10 attempts.`);
    if (attempt > 0) await new Promise((r) => setTimeout(r, 50 * attempt));
    const out = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: requests as never } }));
    requests = out.UnprocessedItems?.[table] ?? [];
  }
}

/** Writes the orders, 25 per request, a few requests at a time. */
export async function seedOrders(doc: DynamoDBDocumentClient, table: string, orders: readonly SeedOrder[]): Promise<void> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < orders.length; i += BATCH) batches.push(orders.slice(i, i + BATCH).map(orderItem));
  const workers = Array.from({ length: 4 }, async () => {
    for (let batch = batches.shift(); batch !== undefined; batch = batches.shift()) await writeBatch(doc, table, batch);
  });
  await Promise.all(workers);
}
