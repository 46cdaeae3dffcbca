/**
 * payments (SQS FIFO, one message group per order, transaction strategy).
 *
 * Marks the order PAID (PENDING -> PAID) and writes `OrderPaid` to the
 * outbox in ONE `TransactWriteItems`, with the idempotency record. The
 * outbox-relay function publishes the event from the orders table's stream.
 * So there is no moment where the order is PAID and its event does not
 * exist: a crash, a timeout or a dead-lettered payment leaves either both
 * or neither. A duplicate delivery fails the idempotency condition and is
 * acknowledged; an order missing or in another state is a conflict that
 * fails the record (retried, then the DLQ) with nothing written.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  eachRecord,
  emfMetrics,
  jsonBody,
  sqsIdempotency,
  type BatchLogger,
  type SqsIdempotencyOptions,
  transaction,
} from 'effectively-once';
import { sharedDocumentClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { middyOptions } from './shared/middy.js';
import { keyField, ORDER_EVENTS_SOURCE, ORDER_PAID, parsePayment, type OrderPaid, type PaymentMessage } from './shared/messages.js';
import { leaseFrom, storeFrom, type StoreDeps } from './shared/store.js';

/** The middleware's `metrics` option (the package exports the main option types only). */
type MetricsOption = NonNullable<SqsIdempotencyOptions['metrics']>;

/** Dependencies of {@link createPaymentsHandler}. */
export interface PaymentsDeps extends StoreDeps {
  readonly client: DynamoDBDocumentClient;
  /** `orders` holds the orders and, keyed by outbox id, the outbox items the relay publishes. */
  readonly tables: { readonly idempotency: string; readonly orders: string };
  /** The middleware's per-batch log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
  /** The middleware's metrics plug-in (docs/metrics.md); default `emfMetrics()` (EMF on stdout), `false` for none. */
  readonly metrics?: MetricsOption | false;
}

/** Consumer name in idempotency record ids: stable across stages and the local run. */
export const PAYMENTS_CONSUMER = 'payments';

/**
 * Builds the payments handler (a middy handler for SQS FIFO batches).
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { lambdaContext, sqsEvent, sqsRecord } from 'effectively-once/testing';
 * import { createPaymentsHandler } from './payments.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const handler = createPaymentsHandler({ client, tables: { idempotency: 'idem', orders: 'orders' } });
 * const event = sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 'o-1', amount: 120, customerId: 'c-1', paidAt: 0 }) })]);
 * const { batchItemFailures } = await handler(event, lambdaContext());
 * ```
 */
export function createPaymentsHandler(deps: PaymentsDeps) {
  const { tables } = deps;
  return middy<SQSEvent, SQSBatchResponse>(middyOptions)
    .use(
      sqsIdempotency({
        store: storeFrom(deps),
        consumer: PAYMENTS_CONSUMER,
        strategy: transaction(),
        key: (record) => keyField(jsonBody(record), 'orderNo'),
        ...leaseFrom(deps),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.metrics === false ? {} : { metrics: deps.metrics ?? emfMetrics() }),
      }),
    )
    .handler(
      eachRecord.inTransaction((record, { tx }) => {
        const payment = parsePayment(jsonBody(record));
        tx.transition({
          tableName: tables.orders,
          key: { orderNo: payment.orderNo },
          from: 'PENDING',
          to: 'PAID',
          set: { paidAt: payment.paidAt, amount: payment.amount },
        });
        const detail: OrderPaid = { orderNo: payment.orderNo, customerId: payment.customerId, amount: payment.amount };
        // The outbox item lives in the orders table (its stream feeds the relay), keyed by its outbox id.
        tx.outbox(
          { source: ORDER_EVENTS_SOURCE, detailType: ORDER_PAID, detail: { ...detail } },
          { tableName: tables.orders, keyAttribute: 'orderNo' },
        );
        return 'applied';
      }),
    );
}

/** A payments queue message as a FIFO producer sends it. */
export interface PaymentSendInput {
  readonly MessageBody: string;
  readonly MessageGroupId: string;
  readonly MessageDeduplicationId: string;
}

/**
 * The message to send for a payment: grouped by order (payments of one order
 * are processed in order), deduplicated by the business key.
 *
 * The deduplication id is derived from the order number, not the body or a
 * random id, so a producer that re-sends the same payment within SQS's
 * 5-minute deduplication window is dropped by the queue. That window is only
 * a first filter: a re-send after 5 minutes, a redrive, or a delivery retried
 * after a consumer crash all reach the consumer again, which is why the
 * consumer is idempotent on its own.
 *
 * @example
 * ```ts
 * import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
 * import { paymentMessage } from './payments.js';
 *
 * const sqs = new SQSClient({});
 * const payment = { orderNo: 'o-1', amount: 120, customerId: 'c-1', paidAt: Date.now() };
 * await sqs.send(new SendMessageCommand({ QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/payments.fifo', ...paymentMessage(payment) }));
 * ```
 */
export function paymentMessage(payment: PaymentMessage): PaymentSendInput {
  return {
    MessageBody: JSON.stringify(payment),
    MessageGroupId: payment.orderNo,
    MessageDeduplicationId: createHash('sha256').update(`payment#${payment.orderNo}`).digest('hex'),
  };
}

/** Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`, `ORDERS_TABLE`. */
export function paymentsDepsFromEnv(env: Env = process.env): PaymentsDeps {
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env), orders: requireEnv('ORDERS_TABLE', env) },
  };
}

/** The Lambda entry point (`functions/payments.handler` in serverless.yml). */
export const handler = lazyHandler(() => createPaymentsHandler(paymentsDepsFromEnv()));
