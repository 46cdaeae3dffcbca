/**
 * The reference service wired for the local run: the real handler factories
 * from `functions/`, with local dependencies. The only differences from the
 * deployed wiring are the edges: OrderPaid goes to the local async invoker
 * instead of EventBridge, notifications are "sent" into a counter, injected
 * faults sit in front of the side effects, and log lines go to a collector.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { createNotificationsHandler } from '../../functions/notifications.js';
import { createPaymentsHandler } from '../../functions/payments.js';
import { createPointsHandler } from '../../functions/points.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID, type NotificationMessage, type OrderPaid } from '../../functions/shared/messages.js';
import { storeFrom } from '../../functions/shared/store.js';
import type { BatchLogger } from '../../src/index.js';
import { eventBridgeEvent } from '../../src/testing/index.js';
import type { SqsHandler } from './event-source.js';
import { FirstAttemptFault, storeWithCommitFault } from './faults.js';
import type { LocalTables } from './tables.js';
import type { Workload } from './workload.js';

export type OrderPaidEvent = EventBridgeEvent<string, OrderPaid>;
export type EventHandler = (event: OrderPaidEvent, context: Context) => Promise<unknown>;

/** Side effects outside DynamoDB, counted where they happen. */
export interface ExternalEffects {
  /** Successful sends per notification id: each valid id must end at exactly 1. */
  readonly notificationsSent: Map<string, number>;
  /** OrderPaid events handed to the bus (including producer re-publishes). */
  orderPaidPublished: number;
  /** Of those, extra copies published on purpose (the producer re-publishing). */
  orderPaidRepublished: number;
}

export interface LocalService {
  readonly payments: SqsHandler;
  readonly notifications: SqsHandler;
  readonly points: EventHandler;
  readonly effects: ExternalEffects;
  readonly faults: { readonly publish: FirstAttemptFault; readonly send: FirstAttemptFault; readonly points: FirstAttemptFault };
}

export interface ServiceDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly tables: LocalTables;
  readonly workload: Workload;
  readonly logger: BatchLogger;
  /** Where published OrderPaid events go (the emulated EventBridge rule → points). */
  readonly deliver: (event: OrderPaidEvent) => void;
}

/** An OrderPaid event as EventBridge hands it to a target: a fresh id per publish. */
function orderPaidEvent(detail: OrderPaid): OrderPaidEvent {
  return eventBridgeEvent({ detailType: ORDER_PAID, source: ORDER_EVENTS_SOURCE, detail, account: LOCAL_ACCOUNT, region: LOCAL_REGION });
}

function publisher(deps: ServiceDeps, effects: ExternalEffects, fault: FirstAttemptFault) {
  const republished = new Set<string>();
  return async (detail: OrderPaid): Promise<void> => {
    fault.hit(detail.orderNo);
    effects.orderPaidPublished += 1;
    deps.deliver(orderPaidEvent(detail));
    // A producer that retries a publish it thinks failed: same business event, new event id.
    if (deps.workload.republish.has(detail.orderNo) && !republished.has(detail.orderNo)) {
      republished.add(detail.orderNo);
      effects.orderPaidPublished += 1;
      effects.orderPaidRepublished += 1;
      deps.deliver(orderPaidEvent(detail));
    }
  };
}

function sender(effects: ExternalEffects, fault: FirstAttemptFault) {
  return async (notification: NotificationMessage): Promise<void> => {
    fault.hit(notification.notificationId);
    const id = notification.notificationId;
    effects.notificationsSent.set(id, (effects.notificationsSent.get(id) ?? 0) + 1);
  };
}

/** Builds the three consumers exactly as `functions/` defines them, with local edges. */
export function buildService(deps: ServiceDeps): LocalService {
  const { doc, tables, workload, logger } = deps;
  const faults = {
    publish: new FirstAttemptFault('OrderPaid publish', workload.failOnce.publish),
    send: new FirstAttemptFault('notification send', workload.failOnce.send),
    points: new FirstAttemptFault('points transaction', workload.failOnce.points),
  };
  const effects: ExternalEffects = { notificationsSent: new Map(), orderPaidPublished: 0, orderPaidRepublished: 0 };
  // Built as in Lambda (functions/shared/store.ts): with the sweeper's in-flight index.
  const store = storeFrom({ client: doc, tables });
  const payments = createPaymentsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency, orders: tables.orders },
    store,
    publish: publisher(deps, effects, faults.publish),
    logger,
  });
  const notifications = createNotificationsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency },
    store,
    send: sender(effects, faults.send),
    logger,
  });
  const points = createPointsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency, points: tables.points },
    store: storeWithCommitFault(store, faults.points),
    logger,
  });
  return { payments, notifications, points, effects, faults };
}
