/**
 * Shared set-up for the SQS middleware tests: a real store on DynamoDB Local,
 * a manual clock (started at the real time, because DynamoDB Local's TTL
 * really deletes items whose expiresAt lies in the past), and a handler
 * builder that records every effect and log line.
 */
import middy from '@middy/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  transaction,
  type DynamoDBIdempotencyStoreOptions,
  type SqsIdempotencyOptions,
} from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { RecordHandler, TransactionRecordHandler } from '../../../src/batch/runner-link.js';
import { lambdaContext, ManualClock, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

export interface Harness {
  readonly store: DynamoDBIdempotencyStore;
  /** The store's DocumentClient (count its requests with `countRequests`). */
  readonly doc: DynamoDBDocumentClient;
  readonly clock: ManualClock;
  readonly table: string;
  readonly lines: BatchLogLine[];
  /** Effects applied, by business key. */
  readonly effects: Map<string, number>;
  /** A middy handler with the middleware in front of `eachRecord(fn)`. */
  handler(
    fn?: RecordHandler,
    options?: Partial<SqsIdempotencyOptions>,
    each?: { concurrency?: number },
  ): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  /** {@link handler} with `eachRecord.inTransaction(fn)`, under `strategy: transaction()` unless `options` say otherwise. */
  txHandler(
    fn: TransactionRecordHandler,
    options?: Partial<SqsIdempotencyOptions>,
    each?: { concurrency?: number },
  ): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  context(timeoutMs?: number): Context;
}

export async function harness(storeOptions: Partial<DynamoDBIdempotencyStoreOptions> = {}): Promise<Harness> {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const clock = new ManualClock(Date.now());
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, clock, ...storeOptions });
  const lines: BatchLogLine[] = [];
  const effects = new Map<string, number>();
  const countEffect: RecordHandler = (_record, { key }) => {
    effects.set(key, (effects.get(key) ?? 0) + 1);
  };
  const middleware = (options: Partial<SqsIdempotencyOptions>) =>
    middy<SQSEvent, SQSBatchResponse>().use(
      sqsIdempotency({
        store,
        consumer: 'test',
        key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo,
        logger: (line) => lines.push(line),
        ...options,
      }),
    );
  return {
    store,
    doc,
    clock,
    table,
    lines,
    effects,
    handler(fn = countEffect, options = {}, each = {}) {
      return middleware(options).handler(eachRecord(fn, each));
    },
    txHandler(fn, options = {}, each = {}) {
      return middleware({ strategy: transaction(), ...options }).handler(eachRecord.inTransaction(fn, each));
    },
    context(timeoutMs = 60_000) {
      return lambdaContext({ functionName: 'test-fn', timeoutMs, clock });
    },
  };
}

/** An SQS record whose body is `{ orderNo, ...extra }`. */
export function order(orderNo: string, extra: Record<string, unknown> = {}, options: { groupId?: string; fifo?: boolean } = {}): SQSRecord {
  const fifo = options.fifo === true || options.groupId !== undefined;
  return sqsRecord({
    body: JSON.stringify({ orderNo, ...extra }),
    ...(fifo ? { queueArn: 'arn:aws:sqs:us-east-1:123456789012:orders.fifo', groupId: options.groupId ?? 'g' } : {}),
  });
}

/** Message ids reported for retry. */
export function failedIds(response: SQSBatchResponse | undefined): string[] {
  return (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
}
