/**
 * payments (SQS FIFO, one message group per order, claim strategy).
 *
 * Marks the order PAID with one conditional update (PENDING -> PAID) and
 * publishes `OrderPaid`. A duplicate delivery finds the claim COMPLETED and
 * is acknowledged without running. If a crash came between the update and
 * the publish, the retry finds the order `already` PAID and publishes again:
 * the event is not lost, and the `points` consumer is idempotent.
 */
import { createHash } from 'node:crypto';
import middy from '@middy/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord, jsonBody, sqsIdempotency, transition, type BatchLogger, type MetricsOption } from 'effectively-once';
import { sharedDocumentClient, sharedEventBridgeClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { keyField, parsePayment, type PaymentMessage } from './shared/messages.js';
import { eventBridgePublisher, stdoutPublisher, type PublishOrderPaid } from './shared/publish.js';
import { leaseFrom, storeFrom, type StoreDeps } from './shared/store.js';

/** Dependencies of {@link createPaymentsHandler}. */
export interface PaymentsDeps extends StoreDeps {
  readonly client: DynamoDBDocumentClient;
  readonly tables: { readonly idempotency: string; readonly orders: string };
  /** Publishes `OrderPaid`; must reject when the event was not accepted. */
  readonly publish: PublishOrderPaid;
  /** The middleware's per-batch log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
  /** The middleware's EMF metrics per batch/event (docs/metrics.md); default EMF on stdout, `false` for none. */
  readonly metrics?: MetricsOption;
}

/** Consumer name in idempotency record ids: stable across stages and the local run. */
export const PAYMENTS_CONSUMER = 'payments';

/** Thrown when an order cannot be paid: it does not exist, or it is in a state other than PENDING/PAID. */
export class OrderNotPayableError extends Error {
  override readonly name = 'OrderNotPayableError';
  constructor(
    readonly orderNo: string,
    readonly status: string | undefined,
  ) {
    super(
      status === undefined
        ? `Order ${orderNo} does not exist; the payment cannot be applied.`
        : `Order ${orderNo} is ${status}, not PENDING; the payment cannot be applied.`,
    );
  }
}

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
 * const publish = async (): Promise<void> => undefined;
 * const handler = createPaymentsHandler({ client, tables: { idempotency: 'idem', orders: 'orders' }, publish });
 * const event = sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 'o-1', amount: 120, customerId: 'c-1', paidAt: 0 }) })]);
 * const { batchItemFailures } = await handler(event, lambdaContext());
 * ```
 */
export function createPaymentsHandler(deps: PaymentsDeps) {
  const { client, tables, publish } = deps;
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store: storeFrom(deps),
        consumer: PAYMENTS_CONSUMER,
        strategy: 'claim',
        key: (record) => keyField(jsonBody(record), 'orderNo'),
        ...leaseFrom(deps),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
      }),
    )
    .handler(
      eachRecord(async (record) => {
        const payment = parsePayment(jsonBody(record));
        const result = await transition(client, {
          table: tables.orders,
          key: { orderNo: payment.orderNo },
          from: 'PENDING',
          to: 'PAID',
          set: { paidAt: payment.paidAt, amount: payment.amount },
        });
        if (result.outcome === 'missing') throw new OrderNotPayableError(payment.orderNo, undefined);
        if (result.outcome === 'conflict') throw new OrderNotPayableError(payment.orderNo, String(result.item['status']));
        // 'applied' or 'already': publish in both cases (see the module comment).
        await publish({ orderNo: payment.orderNo, customerId: payment.customerId, amount: payment.amount });
        return result.outcome;
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

/**
 * Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`,
 * `ORDERS_TABLE`, `EVENT_BUS_NAME`; `PUBLISH_TARGET=stdout` logs events
 * instead of publishing (for `invoke local`).
 */
export function paymentsDepsFromEnv(env: Env = process.env): PaymentsDeps {
  const publish =
    env['PUBLISH_TARGET'] === 'stdout'
      ? stdoutPublisher()
      : eventBridgePublisher(sharedEventBridgeClient(), requireEnv('EVENT_BUS_NAME', env));
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env), orders: requireEnv('ORDERS_TABLE', env) },
    publish,
  };
}

/** The Lambda entry point (`functions/payments.handler` in serverless.yml). */
export const handler = lazyHandler(() => createPaymentsHandler(paymentsDepsFromEnv()));
