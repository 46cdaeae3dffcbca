/**
 * A store on a table that does not exist (a wrong `tableName`, a wrong
 * region), against DynamoDB Local: every record comes back (never
 * acknowledged) with one clear `IdempotencyTableNotFoundError` naming the
 * table, the region and the fix, the line is `ERROR`, and the metrics count
 * it; for the claim and transaction strategies and EventBridge. A business
 * table missing from a transaction is not reported as the idempotency table.
 */
import middy from '@middy/core';
import type { Context, EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  claim,
  DynamoDBClaimStore,
  DynamoDBIdempotencyStore,
  eachRecord,
  emfMetrics,
  eventBridgeIdempotency,
  eventBridgeHandler,
  idempotent,
  jsonBody,
  sqsIdempotency,
  transaction,
} from '../../src/index.js';
import type { EmfDocument } from '../../src/observe/emf.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { RecordHandler } from '../../src/batch/runner-link.js';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';

const missing = 'no-such-idempotency-table';
const context = (): Context => lambdaContext({ functionName: 'orders-fn', timeoutMs: 30_000 });
const order = (orderNo: string) => sqsRecord({ body: JSON.stringify({ orderNo }) });

/** What every record's error says: the class, the table, the region and both commands of the fix. */
function expectTableError(error: { name?: string; message?: string } | undefined): void {
  expect(error?.name).toBe('IdempotencyTableNotFoundError');
  expect(error?.message).toContain(`"${missing}"`);
  expect(error?.message).toContain(LOCAL_REGION);
  expect(error?.message).toContain(`npx effectively-once table create --table ${missing}`);
  expect(error?.message).toContain(`npx effectively-once check --table ${missing}`);
}

function sqsRig(options: { strategy?: ReturnType<typeof claim> | ReturnType<typeof transaction>; claimStore?: boolean } = {}) {
  const { doc } = testDynamo();
  const store = options.claimStore
    ? new DynamoDBClaimStore({ client: doc, tableName: missing })
    : new DynamoDBIdempotencyStore({ client: doc, tableName: missing });
  const lines: BatchLogLine[] = [];
  const documents: EmfDocument[] = [];
  let runs = 0;
  const fn: RecordHandler = () => {
    runs += 1;
  };
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store,
        consumer: 'orders',
        key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
        logger: (l) => lines.push(l),
        metrics: emfMetrics({ emit: (d) => documents.push(d) }),
        ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
      }),
    )
    .handler(eachRecord(fn));
  return { handler, lines, documents, runs: () => runs };
}

describe('a table that does not exist', () => {
  it.each([
    ['claim (batched claims)', { strategy: claim(), claimStore: true }],
    ['claim (pipelined)', { strategy: claim({ pipelined: true }) }],
    ['transaction', { strategy: transaction() }],
    ['transaction (one commit per record)', { strategy: transaction({ commit: 'record' }) }],
  ] as const)('SQS, %s: every record comes back with IdempotencyTableNotFoundError, the line is ERROR, counted', async (_n, options) => {
    const rig = sqsRig(options);
    const records = [order('o-1'), order('o-2'), order('o-3')];
    const response = await rig.handler(sqsEvent(records), context());
    expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(records.map((r) => r.messageId).sort());
    // The claim strategy never ran the handler; the transaction strategy ran it to build a commit that was refused.
    if (options.strategy.kind === 'claim') expect(rig.runs()).toBe(0);
    const line = rig.lines.at(-1);
    expect(line?.level).toBe('ERROR');
    expect(line?.retried).toBe(3);
    expect(line?.records).toHaveLength(3);
    for (const record of line?.records ?? []) expectTableError(record.error);
    expect(rig.documents.at(-1)?.['IdempotencyTableNotFound']).toBe(3);
  });

  it('EventBridge, claim and transaction: the event is thrown with the error (its cause the SDK error), an ERROR line', async () => {
    const { doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: missing });
    type Paid = EventBridgeEvent<'Paid', { orderNo: string }>;
    for (const strategy of [claim(), transaction()]) {
      const lines: BatchLogLine[] = [];
      const handler = middy<Paid, string>()
        .use(
          eventBridgeIdempotency<Paid, string>({
            store,
            strategy,
            consumer: 'points',
            key: (e) => e.detail.orderNo,
            logger: (l) => lines.push(l),
          }),
        )
        .handler(eventBridgeHandler<Paid, string>(async () => 'done'));
      const thrown = await handler(eventBridgeEvent({ detailType: 'Paid', source: 's', detail: { orderNo: 'e-1' } }), context()).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expectTableError(thrown);
      expect((thrown?.cause as Error | undefined)?.name).toBe('ResourceNotFoundException');
      expect(lines.at(-1)?.level).toBe('ERROR');
      expectTableError(lines.at(-1)?.records[0]?.error);
    }
  });

  it('idempotent(): the call rejects with the error', async () => {
    const { doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: missing });
    const once = idempotent(async (n: string) => n, { store, consumer: 'calls', key: (n) => n });
    const thrown = await once('k').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expectTableError(thrown);
  });

  it('transaction strategy, the idempotency table exists but a business table does not: not reported as the idempotency table', async () => {
    const { client, doc } = testDynamo();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName: await freshTable(client) });
    const business = await freshTable(client, businessTable, 'biz');
    const lines: BatchLogLine[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'orders',
          strategy: transaction({ commit: 'record' }),
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (l) => lines.push(l),
        }),
      )
      .handler(
        eachRecord.inTransaction((_r, { key, tx }) => {
          tx.put({ TableName: key === 'gone' ? 'no-such-business-table' : business, Item: { pk: key } });
        }),
      );
    const [gone, fine] = [order('gone'), order('fine')];
    const response = await handler(sqsEvent([gone, fine]), context());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: gone.messageId }]);
    expect(lines.at(-1)?.records[0]?.error?.name).toBe('ResourceNotFoundException');
    expect(lines.at(-1)?.level).toBe('WARN');
  });
});
