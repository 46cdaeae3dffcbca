/**
 * Type tests of the public generics: what a user's editor infers when they
 * write the README's examples. These assertions are checked by the compiler
 * (`npm run typecheck`, part of `npm test`); at run time `expectTypeOf` does
 * nothing, so each case also runs as a test that names what it proves.
 * `@ts-expect-error` lines prove that a wrong use is refused: if the library
 * accepted it, the directive itself would be an error.
 */
import middy from '@middy/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  EventBridgeEvent,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  dynamoDBStreamsIdempotency,
  eachRecord,
  eventBridgeIdempotency,
  eventBridgeHandler,
  jsonBody,
  kafkaIdempotency,
  kafkaValue,
  kinesisIdempotency,
  sqsIdempotency,
  transition,
  versionedUpdate,
  type EventContext,
  type IdempotencyStore,
  type KafkaBatchResponse,
  type KafkaEvent,
  type KafkaRecord,
  type RecordContext,
  type SqsIdempotencyOptions,
  type TransactionBuilder,
  claim,
  withRedisFilter,
  type DynamoDBClaimStore,
  type DynamoDBClaimStoreOptions,
  type DynamoDBIdempotencyStoreOptions,
  type RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
  type DynamoDBIdempotencyStore,
  type RedisFilter,
  type TransactionalIdempotencyStore,
} from '../../src/index.js';
import type { BusinessKey } from '../../src/engine/keys.js';
import type { RecordHandler } from '../../src/batch/runner-link.js';
import type { RecordOutcome } from '../../src/engine/outcomes.js';
import type { StandardSchemaV1 } from '../../src/engine/standard-schema.js';
import type { StateOutcome } from '../../src/strategies/transaction/transition.js';
import { MemoryIdempotencyStore } from '../../src/testing/index.js';

/** Middy's third handler argument, which `eachRecord`'s handler takes: the signal aborted at its early timeout. */
type MiddyOptions = { readonly signal?: AbortSignal };

const store: IdempotencyStore = new MemoryIdempotencyStore();
// Never called: the state helpers' cases are type-level only (they would need a table).
declare const client: DynamoDBDocumentClient;

interface Order {
  orderNo: string;
  amount: number;
}
type OrderPaid = EventBridgeEvent<'OrderPaid', Order>;
interface OrderItem {
  [name: string]: unknown;
  orderNo: string;
  status: 'PENDING' | 'PAID';
  version: number;
}

describe('eachRecord and RecordHandler', () => {
  it('gives the handler the SQS record and the record context, and returns a Lambda handler of SQS batches', () => {
    const handler = eachRecord(async (record, ctx) => {
      expectTypeOf(record).toEqualTypeOf<SQSRecord>();
      expectTypeOf(ctx).toEqualTypeOf<RecordContext>();
      expectTypeOf(ctx.key).toBeString();
      expectTypeOf(ctx.attempt).toBeNumber();
      expectTypeOf(ctx).not.toHaveProperty('tx');
      expectTypeOf(ctx.context).toEqualTypeOf<Context>();
      return { receipt: record.messageId };
    });
    expectTypeOf(handler).toEqualTypeOf<(event: SQSEvent, context: Context, options?: MiddyOptions) => Promise<SQSBatchResponse>>();
    expectTypeOf(handler).returns.resolves.toEqualTypeOf<SQSBatchResponse>();
  });

  it('infers the result type of the record handler, and takes an explicit one', () => {
    const typed: RecordHandler<{ receipt: string }> = (record) => ({ receipt: record.messageId });
    expectTypeOf(typed).returns.toEqualTypeOf<{ receipt: string } | Promise<{ receipt: string }>>();
    expectTypeOf(eachRecord<{ receipt: string }>)
      .parameter(0)
      .toEqualTypeOf<RecordHandler<{ receipt: string }>>();
    // @ts-expect-error: the handler's result must be the declared result type
    eachRecord<{ receipt: string }>(async () => ({ receipt: 1 }));
    expectTypeOf<RecordHandler>().returns.toEqualTypeOf<unknown>();
  });

  it('fits middy<SQSEvent, SQSBatchResponse>() with sqsIdempotency', () => {
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, key: (r) => jsonBody<Order>(r).orderNo }))
      .handler(eachRecord(async () => undefined, { concurrency: 5 }));
    expectTypeOf(handler).toBeCallableWith({ Records: [] } as SQSEvent, {} as Context);
    // Through Middy, with no annotation: the record is the SQS record.
    middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, key: (r) => r.messageId }))
      .handler(eachRecord(async (record) => expectTypeOf(record).toEqualTypeOf<SQSRecord>()));
  });

  it('serves Kafka: behind kafkaIdempotency the record is a KafkaRecord and the response Kafka’s, with no type argument', () => {
    const handler = middy<KafkaEvent, KafkaBatchResponse>()
      .use(kafkaIdempotency({ store, key: (r) => kafkaValue<Order>(r, 'json').orderNo }))
      .handler(
        eachRecord(async (record, ctx) => {
          expectTypeOf(record).toEqualTypeOf<KafkaRecord>();
          expectTypeOf(ctx).toEqualTypeOf<RecordContext>();
          return record.offset;
        }),
      );
    expectTypeOf(handler).toBeCallableWith({} as KafkaEvent, {} as Context);
    // Without Middy, the record's annotation says Kafka: the handler takes a Kafka event and returns its response.
    const plain = eachRecord(async (record: KafkaRecord) => record.topic);
    expectTypeOf(plain).toEqualTypeOf<(event: KafkaEvent, context: Context, options?: MiddyOptions) => Promise<KafkaBatchResponse>>();
    // @ts-expect-error: a Kafka handler answers in Kafka's shape, not SQS's
    middy<SQSEvent, SQSBatchResponse>().handler(eachRecord(async (_record: KafkaRecord) => undefined));
  });

  it('still infers the stream records: behind their middlewares, or from the annotation', () => {
    middy<KinesisStreamEvent, KinesisStreamBatchResponse>()
      .use(kinesisIdempotency({ store }))
      .handler(eachRecord(async (record) => expectTypeOf(record).toEqualTypeOf<KinesisStreamRecord>()));
    middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
      .use(dynamoDBStreamsIdempotency({ store }))
      .handler(eachRecord(async (record: DynamoDBRecord) => record.eventID));
    const kinesis = eachRecord(async (record: KinesisStreamRecord) => record.kinesis.data);
    expectTypeOf(kinesis).toEqualTypeOf<
      (event: { Records: KinesisStreamRecord[] }, context: Context, options?: MiddyOptions) => Promise<SQSBatchResponse>
    >();
    expectTypeOf(kinesis).toBeCallableWith({} as KinesisStreamEvent, {} as Context);
    const typed = eachRecord<string, DynamoDBRecord>((record) => String(record.eventID));
    expectTypeOf(typed).parameter(0).toEqualTypeOf<{ Records: DynamoDBRecord[] }>();
  });
});

describe('sqsIdempotency options', () => {
  it('types the key and payload callbacks from the SQS record', () => {
    expectTypeOf<SqsIdempotencyOptions['key']>().parameter(0).toEqualTypeOf<SQSRecord>();
    expectTypeOf<SqsIdempotencyOptions['key']>().returns.toEqualTypeOf<BusinessKey | undefined | null>();
    expectTypeOf<BusinessKey>().toEqualTypeOf<string | number>();
    sqsIdempotency({ store, key: (r) => r.messageId, payload: (r) => r.body, strategy: claim(), storeResult: false, logger: false });
  });

  it('refuses options of the wrong type or name at compile time', () => {
    // Built, never called: at run time these would be the TypeError naming the option.
    const wrong = [
      // @ts-expect-error: `key` is required
      () => sqsIdempotency({ store }),
      // @ts-expect-error: unknown strategy
      () => sqsIdempotency({ store, key: () => 'k', strategy: 'exactly-once' }),
      // @ts-expect-error: a key must be a string or a number
      () => sqsIdempotency({ store, key: () => ({ id: 1 }) }),
      // @ts-expect-error: unknown option
      () => sqsIdempotency({ store, key: () => 'k', retries: 3 }),
    ];
    expectTypeOf(wrong).items.returns.toEqualTypeOf<ReturnType<typeof sqsIdempotency>>();
  });
});

describe('eventBridgeIdempotency and eventBridgeHandler', () => {
  it('types the key and payload callbacks from the event type argument', () => {
    const mw = eventBridgeIdempotency<OrderPaid>({
      store,
      key: (e) => {
        expectTypeOf(e).toEqualTypeOf<OrderPaid>();
        expectTypeOf(e.detail).toEqualTypeOf<Order>();
        return e.detail.orderNo;
      },
      payload: (e) => e.detail.amount,
    });
    expectTypeOf(mw).toEqualTypeOf<middy.MiddlewareObj<OrderPaid, unknown>>();
    // @ts-expect-error: `detail.customer` is not part of OrderPaid
    eventBridgeIdempotency<OrderPaid>({ store, key: (e) => e.detail.customer });
  });

  it('fits middy<TEvent, TResult>() and keeps the result type', () => {
    const handler = middy<OrderPaid, { receiptId: string }>()
      .use(eventBridgeIdempotency<OrderPaid, { receiptId: string }>({ store, key: (e) => e.detail.orderNo }))
      .handler(async (event) => ({ receiptId: event.detail.orderNo }));
    expectTypeOf(handler).returns.resolves.toEqualTypeOf<{ receiptId: string }>();
  });

  it('eventBridgeHandler<TEvent, TResult> passes the event and the event context, and returns the handler result', () => {
    const run = eventBridgeHandler(async (event: OrderPaid, ctx) => {
      expectTypeOf(ctx).toEqualTypeOf<EventContext>();
      expectTypeOf(ctx).not.toHaveProperty('tx');
      return { points: event.detail.amount };
    });
    expectTypeOf(run).toEqualTypeOf<(event: OrderPaid, context: Context, options?: MiddyOptions) => Promise<{ points: number }>>();
    const explicit = eventBridgeHandler<OrderPaid, string>((event) => event.detail.orderNo);
    expectTypeOf(explicit).returns.resolves.toBeString();
  });
});

describe('tx only where the strategy provides it: the inTransaction runners', () => {
  it('eachRecord: ctx.tx is a type error; eachRecord.inTransaction: ctx.tx is the TransactionBuilder', () => {
    eachRecord(async (_record, ctx) => {
      // @ts-expect-error eachRecord's handler is handed no tx (under transaction() it commits the idempotency record alone)
      void ctx.tx;
    });
    // @ts-expect-error nor when destructured
    eachRecord(async (_record, { tx }) => tx);
    const handler = eachRecord.inTransaction(async (record, ctx) => {
      expectTypeOf(record).toEqualTypeOf<SQSRecord>();
      expectTypeOf(ctx.tx).toEqualTypeOf<TransactionBuilder>();
      expectTypeOf(ctx).toMatchTypeOf<RecordContext>();
    });
    expectTypeOf(handler).toEqualTypeOf<(event: SQSEvent, context: Context, options?: MiddyOptions) => Promise<SQSBatchResponse>>();
    expectTypeOf(
      eachRecord.inTransaction<{ receipt: string }>(async (record, { tx }) => ({ receipt: `${record.messageId}${tx.size}` })),
    ).returns.resolves.toEqualTypeOf<SQSBatchResponse>();
  });

  it('eachRecord.inTransaction follows the record type through Middy as eachRecord does (Kafka)', () => {
    // Types only: `store` here holds no commit, so the middleware is built without transaction().
    middy<KafkaEvent, KafkaBatchResponse>()
      .use(kafkaIdempotency({ store, key: (r) => kafkaValue<Order>(r, 'json').orderNo }))
      .handler(
        eachRecord.inTransaction(async (record, { tx }) => {
          expectTypeOf(record).toEqualTypeOf<KafkaRecord>();
          expectTypeOf(tx).toEqualTypeOf<TransactionBuilder>();
        }),
      );
  });

  it('eventBridgeHandler: ctx.tx is a type error; eventBridgeHandler.inTransaction: ctx.tx is the TransactionBuilder', () => {
    // @ts-expect-error eventBridgeHandler's handler is handed no tx
    eventBridgeHandler(async (_event: OrderPaid, { tx }) => tx);
    const run = eventBridgeHandler.inTransaction(async (event: OrderPaid, ctx) => {
      expectTypeOf(ctx.tx).toEqualTypeOf<TransactionBuilder>();
      expectTypeOf(ctx).toMatchTypeOf<EventContext>();
      return { points: event.detail.amount };
    });
    expectTypeOf(run).toEqualTypeOf<(event: OrderPaid, context: Context, options?: MiddyOptions) => Promise<{ points: number }>>();
  });
});

describe('transition and versionedUpdate', () => {
  it('resolve to a StateOutcome of the item type asked for', () => {
    expectTypeOf(stateCalls).toBeFunction();
  });

  // Type-checked, not run (no table behind `client`).
  function stateCalls(): void {
    const input = { tableName: 'orders', key: { orderNo: 'o-1' }, from: 'PENDING', to: 'PAID' } as const;
    expectTypeOf(transition<OrderItem>(client, input)).resolves.toEqualTypeOf<StateOutcome<OrderItem>>();
    expectTypeOf(transition(client, input)).resolves.toEqualTypeOf<StateOutcome<Record<string, unknown>>>();
    const update = versionedUpdate<OrderItem>(client, {
      tableName: 'orders',
      key: { orderNo: 'o-1' },
      expectVersion: 3,
      set: { status: 'PAID' },
    });
    expectTypeOf(update).resolves.toEqualTypeOf<StateOutcome<OrderItem>>();
    // @ts-expect-error: an item type must be a record of attributes
    void transition<string>(client, input);
  }

  it('narrows StateOutcome by `kind`: the item where there is one, none when missing', () => {
    const narrow = (r: StateOutcome<OrderItem>): void => {
      switch (r.kind) {
        case 'applied':
        case 'already':
        case 'conflict':
          expectTypeOf(r.item).toEqualTypeOf<OrderItem>();
          expectTypeOf(r.item.status).toEqualTypeOf<'PENDING' | 'PAID'>();
          break;
        case 'missing':
          expectTypeOf(r).not.toHaveProperty('item');
          break;
        default:
          expectTypeOf(r).toBeNever();
      }
    };
    expectTypeOf(narrow).parameter(0).toHaveProperty('kind').toEqualTypeOf<'applied' | 'already' | 'conflict' | 'missing'>();
  });
});

describe('store options', () => {
  it("each store takes its own options type; the transactional store's extend the claim store's", () => {
    expectTypeOf<ConstructorParameters<typeof DynamoDBClaimStore>[0]>().toEqualTypeOf<DynamoDBClaimStoreOptions>();
    expectTypeOf<ConstructorParameters<typeof DynamoDBIdempotencyStore>[0]>().toEqualTypeOf<DynamoDBIdempotencyStoreOptions>();
    expectTypeOf<DynamoDBIdempotencyStoreOptions>().toMatchTypeOf<DynamoDBClaimStoreOptions>();
    expectTypeOf<ConstructorParameters<typeof RedisIdempotencyStore>[0]>().toEqualTypeOf<RedisIdempotencyStoreOptions>();
  });
});

describe('withRedisFilter', () => {
  it('returns the exported RedisFilter over the store given (with commit when that store has it)', () => {
    const redis = { sendCommand: async () => null };
    expectTypeOf(withRedisFilter(store, { redis })).toEqualTypeOf<RedisFilter<IdempotencyStore>>();
    expectTypeOf<ReturnType<typeof filtered>>().toEqualTypeOf<RedisFilter<DynamoDBIdempotencyStore> & TransactionalIdempotencyStore>();
    expectTypeOf<ReturnType<typeof filtered>['inner']>().toEqualTypeOf<DynamoDBIdempotencyStore>();
    expect(withRedisFilter(store, { redis }).counts().misses).toBe(0);
    // Types only (no table behind it).
    function filtered(inner: DynamoDBIdempotencyStore) {
      return withRedisFilter(inner, { redis });
    }
  });
});

describe('RecordOutcome', () => {
  it('narrows by `kind` to the fields each outcome carries', () => {
    const narrow = (o: RecordOutcome): void => {
      expectTypeOf(o.messageId).toBeString();
      switch (o.kind) {
        case 'completed':
          expectTypeOf(o.key).toBeString();
          expectTypeOf(o).toHaveProperty('result');
          break;
        case 'duplicate':
        case 'in-progress':
          expectTypeOf(o.existing.id).toBeString();
          break;
        case 'invalid':
          expectTypeOf(o.key).toEqualTypeOf<string | undefined>();
          expectTypeOf(o.error.name).toBeString();
          break;
        case 'failed':
          expectTypeOf(o.error).toBeUnknown();
          break;
        case 'lease-lost':
          expectTypeOf(o.error.key).toEqualTypeOf<string | undefined>();
          break;
        case 'not-started':
          expectTypeOf(o.reason).toEqualTypeOf<'deadline' | 'group-failed' | 'handler-threw' | 'same-key-failed'>();
          break;
        case 'conflict':
          expectTypeOf(o.final).toBeBoolean();
          break;
        case 'dead-lettered':
          expectTypeOf(o.was).toEqualTypeOf<'failed' | 'invalid'>();
          expectTypeOf(o.dlqMessageId).toBeString();
          break;
        default:
          expectTypeOf(o).toBeNever();
      }
    };
    expectTypeOf(narrow).parameter(0).toHaveProperty('kind').toEqualTypeOf<RecordOutcome['kind']>();
  });
});

describe('jsonBody<T>', () => {
  it('returns the type asked for, unknown by default, and takes any record with a body and a message id', () => {
    const record = { body: '{"orderNo":"o-1","amount":5}', messageId: 'm-1' };
    expectTypeOf(jsonBody<Order>(record)).toEqualTypeOf<Order>();
    expectTypeOf(jsonBody(record)).toBeUnknown();
    // @ts-expect-error: a record needs a message id, to name it in the error when the body does not parse
    jsonBody({ body: '{}' });
  });
});

describe('onReplay and schema-typed bodies', () => {
  type Paid = EventBridgeEvent<'Paid', { orderNo: string }>;
  interface Receipt {
    receiptId: string;
    replay?: boolean;
  }

  it('onReplay is typed from the middleware generics: result and event in, the response type out', () => {
    eventBridgeIdempotency<Paid, Receipt>({
      store,
      key: (e) => e.detail.orderNo,
      onReplay: (result, event) => {
        expectTypeOf(result).toEqualTypeOf<Receipt>();
        expectTypeOf(event).toEqualTypeOf<Paid>();
        return { ...result, replay: true };
      },
    });
    eventBridgeIdempotency<Paid, Receipt>({
      store,
      key: (e) => e.detail.orderNo,
      // @ts-expect-error: a replay must answer with the handler's response type
      onReplay: () => 'replayed',
    });
  });

  it('jsonBody(record, schema) returns the schema output type', () => {
    const schema: StandardSchemaV1<unknown, Order> = {
      '~standard': { version: 1, vendor: 't', validate: (v) => ({ value: v as Order }) },
    };
    const fn = (record: SQSRecord) => jsonBody(record, schema);
    expectTypeOf(fn).returns.toEqualTypeOf<Order>();
    // Refused by the compiler and, for untyped callers, at run time.
    // @ts-expect-error: a schema is a Standard Schema v1 object, not any object
    expect(() => jsonBody({ messageId: 'm', body: '{}' }, { parse: () => 1 })).toThrow(TypeError);
  });
});
