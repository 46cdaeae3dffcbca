/**
 * The two contenders, built for the same workload:
 * - ours: `sqsIdempotency` + `eachRecord`, as the README shows it;
 * - Powertools: `BatchProcessor(EventType.SQS)` + `processPartialResponse`
 *   around a `makeIdempotent` record handler with `DynamoDBPersistenceLayer`,
 *   the per-record idempotency setup its batch docs show, keyed on the same
 *   business key (`powertools_json(body).orderNo`).
 * Both are Middy handlers, so Middy's own overhead is on both sides.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency, type LeasePolicy } from '../src/index.js';
import type { RequestCounter } from './counter.js';
import type { CountedClient } from './dynamo.js';
import type { Order } from './workload.js';

/** Which contender. */
export type Side = 'ours' | 'powertools';

/** An SQS batch handler as Lambda calls it. */
export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The effect a record's handler performs, besides the optional business
 * write. The bench counts calls; the correctness check blocks in it.
 */
export type Work = (order: Order, messageId: string) => Promise<void> | void;

/** How a contender is configured for one scenario. */
export interface ContenderOptions {
  readonly side: Side;
  readonly counted: CountedClient;
  /** Idempotency table of this side. */
  readonly tableName: string;
  /** Warm-container cache of completed keys (ours: `cache`; Powertools: `useLocalCache`). */
  readonly cache: boolean;
  /**
   * Write one business item per record into this table: ours inside the
   * transaction (`strategy: 'transaction'`), Powertools with a PutItem in its
   * record handler. Undefined: no business write (claim strategy).
   */
  readonly businessTable?: string;
  readonly work?: Work;
  /** Ours only: lease bounds and start margin, for the takeover check (short leases). */
  readonly lease?: Partial<LeasePolicy>;
  readonly safetyMarginMs?: number;
  /**
   * Middy's early timeout (it rejects the invocation 5 ms before the
   * context's deadline while the handler keeps running). On by default;
   * the takeover check turns it off on both sides to model an invocation
   * that is slow but not stopped, so its late writes happen in view.
   */
  readonly timeoutEarly?: boolean;
}

/** A ready contender. */
export interface Contender {
  readonly side: Side;
  readonly handler: BatchHandler;
  readonly counter: RequestCounter;
}

/** Same size for both caches (Powertools' `maxLocalCacheSize` default). */
const CACHE_ENTRIES = 1000;

/**
 * Ours: the store's in-flight index stays off (its default). Spelled out so
 * the figures say what they measured should the default change: with
 * `trackInflight: true` every claim and completion also writes the
 * `inflight-by-lease` index (one more unit each).
 */
const OURS_TRACK_INFLIGHT = false;

/** What each side runs with, printed above the figures. */
export const contenderSettings = {
  ours:
    `table without the optional sweeper index, store trackInflight ${OURS_TRACK_INFLIGHT}, cache off (on in (d)); eachRecord default concurrency ` +
    '(whole batch claimed first, then that many records at a time, each settled as it finishes)',
  powertools: 'BatchProcessor default processInParallel (every record at once: claim, handler, completion); local cache off (on in (d))',
} as const;

function middyFor<TEvent, TResult>(options: ContenderOptions) {
  return middy<TEvent, TResult>(options.timeoutEarly === false ? { timeoutEarlyInMillis: 0 } : {});
}

/** The business item both sides write for an order. */
export function businessItem(order: Order): Record<string, unknown> {
  return { pk: `order#${order.orderNo}`, customerId: order.customerId, points: Math.floor(order.amount / 10) };
}

function ours(options: ContenderOptions): BatchHandler {
  const { counted, tableName, cache, businessTable, work } = options;
  const store = new DynamoDBIdempotencyStore({
    client: counted.doc,
    tableName,
    trackInflight: OURS_TRACK_INFLIGHT,
    ...(cache ? { cache: { maxEntries: CACHE_ENTRIES } } : {}),
  });
  const middleware = sqsIdempotency({
    store,
    consumer: 'bench',
    key: (r) => jsonBody<Order>(r).orderNo,
    strategy: businessTable === undefined ? 'claim' : 'transaction',
    // The line is still built; only the stdout write is dropped (Powertools writes nothing per batch).
    logger: () => {},
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    ...(options.safetyMarginMs === undefined ? {} : { safetyMarginMs: options.safetyMarginMs }),
  });
  return middyFor<SQSEvent, SQSBatchResponse>(options)
    .use(middleware)
    .handler(
      eachRecord(async (record, { tx, messageId }) => {
        const order = jsonBody<Order>(record);
        await work?.(order, messageId);
        if (businessTable !== undefined) tx.put({ TableName: businessTable, Item: businessItem(order) });
      }),
    );
}

function powertools(options: ContenderOptions): BatchHandler {
  const { counted, tableName, cache, businessTable, work } = options;
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: counted.client });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'powertools_json(body).orderNo',
    ...(cache ? { useLocalCache: true, maxLocalCacheSize: CACHE_ENTRIES } : {}),
  });
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    const order = JSON.parse(record.body) as Order;
    await work?.(order, record.messageId);
    if (businessTable !== undefined) {
      await counted.doc.send(new PutCommand({ TableName: businessTable, Item: businessItem(order) }));
    }
  };
  const processIdempotently = makeIdempotent(recordHandler, { persistenceStore, config });
  return middyFor<SQSEvent, SQSBatchResponse>(options).handler(async (event: SQSEvent, context: Context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, processIdempotently, processor, { context });
  });
}

/** Builds one contender. Each gets its own store / persistence layer, so no cache or config leaks between scenarios. */
export function contender(options: ContenderOptions): Contender {
  const handler = options.side === 'ours' ? ours(options) : powertools(options);
  return { side: options.side, handler, counter: options.counted.counter };
}
