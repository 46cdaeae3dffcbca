/**
 * points (EventBridge rule on `OrderPaid`, transaction strategy).
 *
 * Awards loyalty points once per order: the ledger item, the customer's
 * balance and the idempotency record commit in ONE `TransactWriteItems`, so
 * a duplicate event (a retry, a re-publish after a payments crash) fails the
 * idempotency condition and changes nothing; nothing is ever half applied.
 * The ledger item's own `attribute_not_exists` keeps the guarantee even
 * after the idempotency record has expired; its failure can only mean "this
 * order's points are already awarded", so it is acknowledged, not retried.
 */
import middy from '@middy/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventBridgeEvent } from 'aws-lambda';
import {
  emfMetrics,
  eventBridgeIdempotency,
  eventBridgeHandler,
  transaction,
  type BatchLogger,
  type EventBridgeIdempotencyOptions,
} from 'effectively-once';
import { sharedDocumentClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { middyOptions } from './shared/middy.js';
import { keyField, parseOrderPaid } from './shared/messages.js';
import { storeFrom, type StoreDeps } from './shared/store.js';

/** The middleware's `metrics` option (the package exports the main option types only). */
type MetricsOption = NonNullable<EventBridgeIdempotencyOptions['metrics']>;

/** Dependencies of {@link createPointsHandler}. */
export interface PointsDeps extends StoreDeps {
  readonly client: DynamoDBDocumentClient;
  /** `points` holds both ledger items (`order#<orderNo>`) and balances (`customer#<customerId>`). */
  readonly tables: { readonly idempotency: string; readonly points: string };
  /** The middleware's per-event log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
  /** The middleware's metrics plug-in (docs/metrics.md); default `emfMetrics()` (EMF on stdout), `false` for none. */
  readonly metrics?: MetricsOption | false;
}

/** What the handler returns for an event it applied. */
export interface PointsAwarded {
  readonly orderNo: string;
  readonly customerId: string;
  readonly points: number;
}

/** Consumer name in idempotency record ids. */
export const POINTS_CONSUMER = 'points';

/** Loyalty rule: one point per full 10 currency units paid. */
export function pointsFor(amount: number): number {
  return Math.max(0, Math.floor(amount / 10));
}

/** Ledger item key of an order. */
export const ledgerKey = (orderNo: string): { pk: string } => ({ pk: `order#${orderNo}` });
/** Balance item key of a customer. */
export const balanceKey = (customerId: string): { pk: string } => ({ pk: `customer#${customerId}` });

/**
 * Builds the points handler (a middy handler for `OrderPaid` events).
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { eventBridgeEvent, lambdaContext } from 'effectively-once/testing';
 * import { createPointsHandler } from './points.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const handler = createPointsHandler({ client, tables: { idempotency: 'idem', points: 'points' } });
 * const orderPaid = eventBridgeEvent({ source: 'effectively-once.payments', detailType: 'OrderPaid', detail: { orderNo: 'o-1', customerId: 'c-1', amount: 120 } });
 * await handler(orderPaid, lambdaContext());
 * ```
 */
export function createPointsHandler(deps: PointsDeps) {
  const { tables } = deps;
  const now = (): number => deps.clock?.now() ?? Date.now();
  // `undefined` when a conflict was acknowledged (see the module comment).
  return middy<EventBridgeEvent<string, unknown>, PointsAwarded | undefined>(middyOptions)
    .use(
      eventBridgeIdempotency({
        store: storeFrom(deps),
        consumer: POINTS_CONSUMER,
        strategy: transaction({ onConflict: 'acknowledge' }),
        key: (event) => keyField(event.detail, 'orderNo'),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.metrics === false ? {} : { metrics: deps.metrics ?? emfMetrics() }),
      }),
    )
    .handler(
      eventBridgeHandler.inTransaction(async (event: EventBridgeEvent<string, unknown>, { tx }): Promise<PointsAwarded> => {
        const { orderNo, customerId, amount } = parseOrderPaid(event.detail);
        const points = pointsFor(amount);
        const at = now();
        tx.put({
          TableName: tables.points,
          Item: { ...ledgerKey(orderNo), orderNo, customerId, amount, points, awardedAt: at },
          ConditionExpression: 'attribute_not_exists(pk)',
        });
        tx.update({
          TableName: tables.points,
          Key: balanceKey(customerId),
          UpdateExpression: 'SET customerId = :customer, updatedAt = :now ADD points :points',
          ExpressionAttributeValues: { ':customer': customerId, ':now': at, ':points': points },
        });
        return { orderNo, customerId, points };
      }),
    );
}

/** Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`, `POINTS_TABLE`. */
export function pointsDepsFromEnv(env: Env = process.env): PointsDeps {
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env), points: requireEnv('POINTS_TABLE', env) },
  };
}

/** The Lambda entry point (`functions/points.handler` in serverless.yml). */
export const handler = lazyHandler(() => createPointsHandler(pointsDepsFromEnv()));
