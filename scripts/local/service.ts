/**
 * The reference service wired for the local run: the real handler factories
 * from `functions/`, with local dependencies. The only differences from the
 * deployed wiring are the edges: the outbox relay's `PutEvents` go to the
 * local async invoker (as the bus rule would) instead of EventBridge,
 * notifications are "sent" into a counter, injected faults sit in front of
 * the side effects, and log lines go to a collector.
 */
import { randomUUID } from 'node:crypto';
import type { PutEventsCommand, PutEventsCommandOutput, PutEventsResultEntry } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { createNotificationsHandler, type NotificationsDeps } from '../../functions/notifications.js';
import { createOutboxRelayHandler } from '../../functions/outbox-relay.js';
import { createPaymentsHandler } from '../../functions/payments.js';
import { createPointsHandler } from '../../functions/points.js';
import { ORDER_EVENTS_SOURCE, ORDER_PAID, type NotificationMessage, type OrderPaid } from '../../functions/shared/messages.js';
import { storeFrom } from '../../functions/shared/store.js';
import type { BatchLogger, TransactionalIdempotencyStore } from '../../src/index.js';
import type { EventBridgePutEvents, OutboxRelayHandler } from '../../src/strategies/transaction/outbox/relay.js';
import type { LeasePolicy } from '../../src/engine/lease.js';
import type { MetricsPlugin } from '../../src/observe/metrics-plugin.js';
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
  /** The outbox relay, for the orders table's stream. */
  readonly relay: OutboxRelayHandler;
  readonly effects: ExternalEffects;
  readonly faults: { readonly publish: FirstAttemptFault; readonly send: FirstAttemptFault; readonly points: FirstAttemptFault };
}

/**
 * Hooks the chaos run puts into the service (absent in `npm start`): crash
 * points and tracing around each consumer's store, something before and
 * after each external side effect, shorter claim leases.
 */
export interface ServiceHooks {
  /** Wraps a consumer's idempotency store. */
  store(consumer: Consumer, store: TransactionalIdempotencyStore): TransactionalIdempotencyStore;
  /** Runs before an external side effect (e.g. a slow call, or stop if the invocation was killed). */
  beforeEffect(kind: 'publish' | 'send', key: string): Promise<void>;
  /** Told after an external side effect happened. */
  afterEffect(kind: 'publish' | 'send', key: string): void;
  /** Runs one invocation of a consumer (e.g. inside a per-invocation trace). */
  invocation<T>(consumer: 'payments' | 'notifications' | 'points', run: () => Promise<T>): Promise<T>;
  /** Claim lease bounds for the SQS consumers. */
  readonly lease?: Partial<LeasePolicy>;
  /** Runs at a relay crash point, per outbox id: after `PutEvents` returned, before the mark (e.g. kill the invocation). */
  relayPoint?(point: RelayCrashPoint, outboxId: string): Promise<void>;
}

/** Where the chaos run may kill the outbox relay. */
export type RelayCrashPoint = 'after-put-events' | 'before-mark';

type Consumer = 'payments' | 'notifications' | 'points';

function traced<E, R>(hooks: ServiceHooks | undefined, consumer: Consumer, handler: (event: E, context: Context) => Promise<R>) {
  if (hooks === undefined) return handler;
  return (event: E, context: Context): Promise<R> => hooks.invocation(consumer, () => handler(event, context));
}

export interface ServiceDeps {
  readonly doc: DynamoDBDocumentClient;
  readonly tables: LocalTables;
  readonly workload: Workload;
  readonly logger: BatchLogger;
  /** The metrics plug-in of every handler and the relay (the local run's collector); default `emfMetrics()` (EMF on stdout). */
  readonly metrics?: MetricsPlugin;
  /** Where published OrderPaid events go (the emulated EventBridge rule → points). */
  readonly deliver: (event: OrderPaidEvent) => void;
  /** The relay's client for marking items (uncounted: the run counts the handlers' writes to orders as transitions). */
  readonly relayDoc: DynamoDBDocumentClient;
  readonly hooks?: ServiceHooks;
  /** The local SQS client: notifications sends permanent failures to its DLQ and backs off through it. */
  readonly sqs?: SQSClient;
  readonly backoff?: NotificationsDeps['backoff'];
}

/** An OrderPaid event as EventBridge hands it to a target: a fresh id per publish. */
function orderPaidEvent(detail: OrderPaid): OrderPaidEvent {
  return eventBridgeEvent({ detailType: ORDER_PAID, source: ORDER_EVENTS_SOURCE, detail, account: LOCAL_ACCOUNT, region: LOCAL_REGION });
}

/**
 * The local bus: `PutEvents` as the relay sends it, each accepted entry
 * handed to points as the rule would. An injected fault refuses an entry
 * (the relay retries it alone); a workload "republish" delivers a second
 * copy of an event, as a publish retried after a lost answer would.
 */
function localEventBridge(deps: ServiceDeps, effects: ExternalEffects, fault: FirstAttemptFault): EventBridgePutEvents {
  const republished = new Set<string>();
  const accept = async (detail: OrderPaid): Promise<PutEventsResultEntry> => {
    await deps.hooks?.beforeEffect('publish', detail.orderNo);
    try {
      fault.hit(detail.orderNo);
    } catch (error) {
      return { ErrorCode: 'InternalFailure', ErrorMessage: String(error) };
    }
    effects.orderPaidPublished += 1;
    deps.deliver(orderPaidEvent(detail));
    deps.hooks?.afterEffect('publish', detail.orderNo);
    if (deps.workload.republish.has(detail.orderNo) && !republished.has(detail.orderNo)) {
      republished.add(detail.orderNo);
      effects.orderPaidPublished += 1;
      effects.orderPaidRepublished += 1;
      deps.deliver(orderPaidEvent(detail));
    }
    return { EventId: randomUUID() };
  };
  return {
    async send(command: PutEventsCommand): Promise<PutEventsCommandOutput> {
      const answers: PutEventsResultEntry[] = [];
      for (const entry of command.input.Entries ?? []) answers.push(await accept(JSON.parse(entry.Detail ?? '{}') as OrderPaid));
      const outboxIds = (command.input.Entries ?? []).map((e) => String((JSON.parse(e.Detail ?? '{}') as { outboxId?: string }).outboxId));
      for (const id of outboxIds) await deps.hooks?.relayPoint?.('after-put-events', id);
      return { $metadata: {}, FailedEntryCount: answers.filter((a) => a.ErrorCode !== undefined).length, Entries: answers };
    },
  };
}

/** The relay's DocumentClient with the `before-mark` crash point in front of each mark. */
function relayClient(deps: ServiceDeps): DynamoDBDocumentClient {
  const { relayDoc, hooks } = deps;
  if (hooks?.relayPoint === undefined) return relayDoc;
  const point = hooks.relayPoint.bind(hooks);
  const send = async (command: { input: { Key?: Record<string, unknown> } }, ...rest: unknown[]) => {
    await point('before-mark', String(Object.values(command.input.Key ?? {})[0]));
    return (relayDoc.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  };
  return new Proxy(relayDoc, { get: (target, p) => (p === 'send' ? send : Reflect.get(target, p, target)) });
}

function sender(effects: ExternalEffects, fault: FirstAttemptFault, hooks: ServiceHooks | undefined) {
  return async (notification: NotificationMessage): Promise<void> => {
    const id = notification.notificationId;
    await hooks?.beforeEffect('send', id);
    fault.hit(id);
    effects.notificationsSent.set(id, (effects.notificationsSent.get(id) ?? 0) + 1);
    hooks?.afterEffect('send', id);
  };
}

/** Builds the three consumers exactly as `functions/` defines them, with local edges. */
export function buildService(deps: ServiceDeps): LocalService {
  const { doc, tables, workload, logger, hooks } = deps;
  const metrics = deps.metrics === undefined ? {} : { metrics: deps.metrics };
  const faults = {
    publish: new FirstAttemptFault('OrderPaid publish', workload.failOnce.publish),
    send: new FirstAttemptFault('notification send', workload.failOnce.send),
    points: new FirstAttemptFault('points transaction', workload.failOnce.points),
  };
  const effects: ExternalEffects = { notificationsSent: new Map(), orderPaidPublished: 0, orderPaidRepublished: 0 };
  // Built as in Lambda (functions/shared/store.ts): with the sweeper's in-flight index.
  const store = storeFrom({ client: doc, tables });
  const storeOf = (consumer: Consumer, base: TransactionalIdempotencyStore) => hooks?.store(consumer, base) ?? base;
  const lease = hooks?.lease === undefined ? {} : { lease: hooks.lease };
  const payments = createPaymentsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency, orders: tables.orders },
    store: storeOf('payments', store),
    ...lease,
    logger,
    ...metrics,
  });
  const relay = createOutboxRelayHandler({
    client: relayClient(deps),
    eventBridge: localEventBridge(deps, effects, faults.publish),
    busName: 'local-orders',
    ...metrics,
  });
  const notifications = createNotificationsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency },
    store: storeOf('notifications', store),
    ...lease,
    send: sender(effects, faults.send, hooks),
    logger,
    ...metrics,
    ...(deps.sqs === undefined ? {} : { sqs: deps.sqs }),
    ...(deps.backoff === undefined ? {} : { backoff: deps.backoff }),
  });
  const points = createPointsHandler({
    client: doc,
    tables: { idempotency: tables.idempotency, points: tables.points },
    store: storeOf('points', storeWithCommitFault(store, faults.points)),
    logger,
    ...metrics,
  });
  return {
    payments: traced(hooks, 'payments', payments),
    notifications: traced(hooks, 'notifications', notifications),
    points: traced(hooks, 'points', points),
    relay,
    effects,
    faults,
  };
}
