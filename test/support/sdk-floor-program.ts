/**
 * The program test/integration/sdk-floor.test.ts runs in a consumer project whose `@aws-sdk/client-dynamodb`,
 * `lib-dynamodb` and `util-dynamodb` are the floor of the package's peer range (devDependencies under npm
 * aliases), and whose `effectively-once` is the packed package: the store contract on `DynamoDBIdempotencyStore`,
 * the README's claim handler (batched and per-record requests), a transaction with group commit and
 * `transition()`, all on DynamoDB Local. Transpiled to JavaScript as it is (imports unchanged) and run with
 * `--preserve-symlinks`; prints one JSON line, `FloorReport`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  DynamoDBClaimStore,
  DynamoDBIdempotencyStore,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  transaction,
  transition,
} from 'effectively-once';
import {
  createIdempotencyTable,
  injectDynamoDBFaults,
  lambdaContext,
  sqsEvent,
  sqsRecord,
  storeContract,
  type StoreContractSubject,
} from 'effectively-once/testing';

/** What the program prints. */
export interface FloorReport {
  /** Versions of the SDK packages as the package resolves them, and as lib-dynamodb resolves its own. */
  readonly versions: Readonly<Record<string, string>>;
  readonly contract: { readonly cases: number; readonly failures: readonly string[] };
  /** Handler runs per key after a batch with a copy and a redelivery, and each batch's failed ids and requests. */
  readonly claim: Readonly<
    Record<string, { readonly effects: Record<string, number>; readonly failed: number; readonly requests: string[] }>
  >;
  readonly transaction: { readonly points: unknown; readonly failed: number; readonly duplicates: number };
  readonly transition: readonly string[];
}

/** The `version` of the package `name` as `from` resolves it (its entry point, then up to its package.json). */
function versionOf(name: string, from: string): string {
  let dir = dirname(createRequire(from).resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version ?? '?';
    } catch {
      // no package.json here: go up
    }
    if (dirname(dir) === dir) return 'not found';
    dir = dirname(dir);
  }
}

function versions(): Record<string, string> {
  const main = fileURLToPath(import.meta.resolve('effectively-once'));
  const lib = createRequire(main).resolve('@aws-sdk/lib-dynamodb');
  return {
    'client-dynamodb': versionOf('@aws-sdk/client-dynamodb', main),
    'lib-dynamodb': versionOf('@aws-sdk/lib-dynamodb', main),
    'util-dynamodb': versionOf('@aws-sdk/util-dynamodb', main),
    'client-dynamodb (lib-dynamodb)': versionOf('@aws-sdk/client-dynamodb', lib),
    'util-dynamodb (lib-dynamodb)': versionOf('@aws-sdk/util-dynamodb', lib),
  };
}

const endpoint = process.env['DYNAMODB_ENDPOINT'] ?? 'http://127.0.0.1:8000';
const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const suffix = Date.now().toString(36);

async function contract(tableName: string): Promise<FloorReport['contract']> {
  const cases = storeContract(
    ({ clock, retentionMs, release }): StoreContractSubject => ({
      store: new DynamoDBIdempotencyStore({ client: doc, tableName, clock, retentionMs, release }),
      // The first write lands and its answer is lost; the floor SDK's retry must meet it as the store's own.
      loseFirstResponse: async (call) => {
        const faults = injectDynamoDBFaults(client, {
          rules: [{ fault: 'network-after', commands: ['PutItem', 'UpdateItem'], calls: [1] }],
        });
        try {
          const result = await call();
          if (faults.injected()['network-after'] !== 1 || faults.surfaced()['network-after'] !== 0) {
            throw new Error('the first write was not lost and retried by the SDK');
          }
          return result;
        } finally {
          faults.remove();
        }
      },
    }),
    { releaseModes: ['delete', 'mark-failed'] },
  );
  const failures: string[] = [];
  for (const c of cases) {
    try {
      await c.run();
    } catch (error) {
      failures.push(`${c.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { cases: cases.length, failures };
}

type Batch = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The README's claim handler at `memoryLimitInMB` (below 512 MB the claims go in one request, from 512 MB one each). */
async function claimRun(tableName: string, memoryLimitInMB: number) {
  const store = new DynamoDBClaimStore({ client: doc, tableName, logger: false });
  const effects: Record<string, number> = {};
  const requests: string[] = [];
  let failed = 0;
  const handler: Batch = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: `floor-${memoryLimitInMB}`,
        key: (r) => jsonBody<{ id: string }>(r).id,
        logger: (line) => requests.push(line.requests ?? 'none'),
      }),
    )
    .handler(
      eachRecord(async (record) => {
        const { id } = jsonBody<{ id: string }>(record);
        effects[id] = (effects[id] ?? 0) + 1;
      }),
    );
  const body = (id: string) => sqsRecord({ body: JSON.stringify({ id }) });
  const context = () => lambdaContext({ memoryLimitInMB, timeoutMs: 60_000 });
  failed += (await handler(sqsEvent([body('a'), body('b'), body('a')]), context())).batchItemFailures.length;
  failed += (await handler(sqsEvent([body('a'), body('c')]), context())).batchItemFailures.length;
  return { effects, failed, requests };
}

async function transactionRun(tableName: string, points: string): Promise<FloorReport['transaction']> {
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName, logger: false });
  let duplicates = 0;
  const handler: Batch = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'floor-points',
        strategy: transaction(),
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: (line) => {
          duplicates += line.counts.duplicate;
        },
      }),
    )
    .handler(
      eachRecord.inTransaction(async (record, { tx }) => {
        const { orderNo } = jsonBody<{ orderNo: string }>(record);
        tx.update({
          TableName: points,
          Key: { pk: 'customer#1' },
          UpdateExpression: 'ADD points :p',
          ExpressionAttributeValues: { ':p': 10 },
        });
        tx.put({ TableName: points, Item: { pk: `order#${orderNo}` }, ConditionExpression: 'attribute_not_exists(pk)' });
      }),
    );
  const paid = (orderNo: string) => sqsRecord({ body: JSON.stringify({ orderNo }) });
  const context = () => lambdaContext({ timeoutMs: 60_000 });
  let failed = (await handler(sqsEvent([paid('o-1'), paid('o-2'), paid('o-3')]), context())).batchItemFailures.length;
  failed += (await handler(sqsEvent([paid('o-2'), paid('o-4')]), context())).batchItemFailures.length;
  const item = await doc.send(new GetCommand({ TableName: points, Key: { pk: 'customer#1' }, ConsistentRead: true }));
  return { points: item.Item?.['points'], failed, duplicates };
}

async function transitionRun(orders: string): Promise<string[]> {
  await doc.send(new PutCommand({ TableName: orders, Item: { pk: 'order#1', status: 'PENDING', version: 0 } }));
  const move = () => transition(doc, { tableName: orders, key: { pk: 'order#1' }, from: 'PENDING', to: 'PAID' });
  const seen: string[] = [];
  for (const step of [move, move]) {
    const r = await step();
    seen.push(`${r.kind}:${'item' in r ? String(r.item['status']) : '-'}`);
  }
  const refused = await transition(doc, { tableName: orders, key: { pk: 'order#1' }, from: 'PENDING', to: 'CANCELLED' });
  seen.push(`${refused.kind}:${'item' in refused ? String(refused.item['status']) : '-'}`);
  return seen;
}

async function businessTable(name: string): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

const table = `floor-${suffix}`;
await createIdempotencyTable(client, table);
const report: FloorReport = {
  versions: versions(),
  contract: await contract(table),
  claim: { '256 MB': await claimRun(table, 256), '1024 MB': await claimRun(table, 1024) },
  transaction: await transactionRun(table, await businessTable(`floor-points-${suffix}`)),
  transition: await transitionRun(await businessTable(`floor-orders-${suffix}`)),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
client.destroy();
