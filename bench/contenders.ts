/**
 * The handlers under test, built the way each library's docs show them:
 * - ours: `sqsIdempotency` + `eachRecord` (claim or transaction strategy);
 * - Powertools: `BatchProcessor(EventType.SQS)` + `processPartialResponse`
 *   around a `makeIdempotent` record handler with `DynamoDBPersistenceLayer`,
 *   keyed on the same business key through JMESPath;
 * - no idempotency: the business write per record, nothing else.
 * All are Middy handlers, so Middy's own cost is in every figure.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  DynamoDBIdempotencyStore,
  eachRecord,
  emfMetrics,
  jsonBody,
  sqsIdempotency,
  type BatchLogger,
  type RecordContext,
  type TransactionBuilder,
  type SqsIdempotencyOptions,
} from '../src/index.js';
import type { LeasePolicy } from '../src/engine/lease.js';
import type { CountedClient } from './dynamo.js';
import type { OrderPaid } from './workload.js';

/** An SQS batch handler as Lambda calls it. */
export type BatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** The per-record effect under our middleware (gets `tx` for the transaction strategy: it runs in `eachRecord.inTransaction`). */
export type OursEffect = (event: OrderPaid, ctx: RecordContext & { readonly tx?: TransactionBuilder }) => Promise<void> | void;
/** The per-record effect under Powertools or with no idempotency. */
export type PlainEffect = (event: OrderPaid, messageId: string) => Promise<void> | void;

/** Options shared by every handler. */
interface HandlerOptions {
  readonly counted: CountedClient;
  /**
   * Middy's early timeout (it rejects the invocation 5 ms before the
   * context's deadline while the handler keeps running). On by default; the
   * lease-takeover check turns it off on both sides, so a slow invocation is
   * slow but not stopped and its late writes happen in view.
   */
  readonly timeoutEarly?: boolean;
  /** Called as each record's effect starts (the bench times when records get to run). */
  readonly onEffect?: () => void;
}

/** What `sqsIdempotency`'s `strategy` option takes: `claim()`, `transaction()`, ... */
export type OursStrategy = NonNullable<SqsIdempotencyOptions['strategy']>;

/** Gets ours' batch log line as the middleware hands it to its `logger`. */
export type BatchLineHook = BatchLogger;

/** A Middy middleware on an SQS batch handler. */
export type SqsMiddleware = MiddlewareObj<SQSEvent, SQSBatchResponse>;

export interface OursOptions extends HandlerOptions {
  readonly tableName: string;
  /** The `strategy` option; undefined: none at all, the library's own choice (what the README's handler gets). */
  readonly strategy: OursStrategy | undefined;
  /** Gets each batch's log line (undefined: the line is built and dropped, as with any logger that writes nothing). */
  readonly onBatchLine?: BatchLineHook | undefined;
  /** Middlewares used after ours, in order (Middy runs their `before` after ours'). */
  readonly after?: readonly SqsMiddleware[];
  /** Warm-container cache size (`cache: { maxEntries }`); undefined: off (the default). */
  readonly cacheEntries?: number;
  readonly effect: OursEffect;
  /** Lease bounds and start margin, for the takeover check (short leases). */
  readonly lease?: Partial<LeasePolicy>;
  readonly safetyMarginMs?: number;
}

export interface PowertoolsOptions extends HandlerOptions {
  readonly tableName: string;
  /** `useLocalCache` with this `maxLocalCacheSize`; undefined: off (the default). */
  readonly cacheEntries?: number;
  readonly effect: PlainEffect;
}

/**
 * Ours: the store's in-flight index stays off (its default). Spelled out so
 * the figures say what they measured should the default change.
 */
const OURS_TRACK_INFLIGHT = false;

function middyFor(options: HandlerOptions) {
  return middy<SQSEvent, SQSBatchResponse>(options.timeoutEarly === false ? { timeoutEarlyInMillis: 0 } : {});
}

export function oursHandler(options: OursOptions): BatchHandler {
  const { strategy } = options;
  const store = new DynamoDBIdempotencyStore({
    client: options.counted.doc,
    tableName: options.tableName,
    trackInflight: OURS_TRACK_INFLIGHT,
    ...(options.cacheEntries === undefined ? {} : { cache: { maxEntries: options.cacheEntries } }),
  });
  const middleware = sqsIdempotency({
    store,
    consumer: 'bench',
    key: (r) => jsonBody<OrderPaid>(r).orderNo,
    ...(strategy === undefined ? {} : { strategy }),
    // The batch line is built and handed to the bench (which reads its `requests`); it is never written to stdout
    // (Powertools writes nothing per batch).
    logger: (line) => options.onBatchLine?.(line),
    // Likewise the EMF document: built, not written (Powertools emits no metrics here).
    metrics: emfMetrics({ emit: () => {} }),
    ...(options.lease === undefined ? {} : { lease: options.lease }),
    ...(options.safetyMarginMs === undefined ? {} : { safetyMarginMs: options.safetyMarginMs }),
  });
  const { effect } = options;
  const handler = middyFor(options).use(middleware);
  for (const m of options.after ?? []) handler.use(m);
  const run = async (record: SQSRecord, ctx: RecordContext & { readonly tx?: TransactionBuilder }) => {
    options.onEffect?.();
    return effect(jsonBody<OrderPaid>(record), ctx);
  };
  return handler.handler(strategy?.kind === 'transaction' ? eachRecord.inTransaction(run) : eachRecord(run));
}

export function powertoolsHandler(options: PowertoolsOptions): BatchHandler {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: options.tableName, awsSdkV3Client: options.counted.client });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'powertools_json(body).orderNo',
    ...(options.cacheEntries === undefined ? {} : { useLocalCache: true, maxLocalCacheSize: options.cacheEntries }),
  });
  const processor = new BatchProcessor(EventType.SQS);
  const { effect } = options;
  const onRecord = async (record: SQSRecord): Promise<void> => {
    options.onEffect?.();
    return effect(JSON.parse(record.body) as OrderPaid, record.messageId);
  };
  const idempotentRecord = makeIdempotent(onRecord, { persistenceStore, config });
  return middyFor(options).handler(async (event: SQSEvent, context: Context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, idempotentRecord, processor, { context });
  });
}

/** No idempotency: every record's effect at once, failures reported per record. Written out here so neither library's code is in it. */
export function plainHandler(options: HandlerOptions & { readonly effect: PlainEffect }): BatchHandler {
  const { effect } = options;
  return middyFor(options).handler(async (event: SQSEvent) => {
    const settled = await Promise.allSettled(
      event.Records.map(async (record) => {
        options.onEffect?.();
        return effect(JSON.parse(record.body) as OrderPaid, record.messageId);
      }),
    );
    const batchItemFailures = event.Records.filter((_, i) => settled[i]?.status === 'rejected').map((r) => ({
      itemIdentifier: r.messageId,
    }));
    return { batchItemFailures };
  });
}

/**
 * Ours without the middleware: `eachRecord` alone, for the state-machine
 * variant, where the conditional update itself is the idempotency check and
 * there is no record to claim.
 */
export function eachRecordHandler(options: HandlerOptions & { readonly effect: PlainEffect }): BatchHandler {
  const { effect } = options;
  return middyFor(options).handler(
    eachRecord(async (record, ctx) => {
      options.onEffect?.();
      return effect(jsonBody<OrderPaid>(record), ctx.messageId);
    }),
  );
}
