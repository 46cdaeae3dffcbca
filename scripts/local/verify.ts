/**
 * Reads the end state back and compares it with the workload: effects
 * applied against unique business events. What the handlers or the logs
 * claim does not count here; only the tables, the side-effect counters and
 * the queues do.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointsFor } from '../../functions/points.js';
import type { ExternalEffects } from './service.js';
import type { Workload } from './workload.js';

type Item = Record<string, unknown>;

/** Every item of a table (paginated scan; the tables of a local run are small). */
async function scanAll(doc: DynamoDBDocumentClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...((page.Items ?? []) as Item[]));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return items;
}

export interface OrderEffects {
  /** Orders that had to be paid (unique business events). */
  readonly expected: number;
  readonly paid: number;
  /** Successful conditional updates on the orders table (each one is a transition that happened). */
  readonly transitionsApplied: number;
  /** Paid orders whose version says they were transitioned more than once. */
  readonly paidMoreThanOnce: readonly string[];
  readonly neverPaid: readonly string[];
  /** Orders that must not be paid (poison targets) but were. */
  readonly wronglyPaid: readonly string[];
}

export interface PointsEffects {
  readonly expected: number;
  readonly ledgerItems: number;
  readonly ordersWithoutPoints: readonly string[];
  readonly unexpectedLedger: readonly string[];
  /** Ledger items whose points do not follow the rule (amount / 10). */
  readonly wrongPoints: readonly string[];
  readonly customers: number;
  /** Customers whose balance is not the sum of their ledger items. */
  readonly balanceMismatches: readonly string[];
}

export interface NotificationEffects {
  readonly expected: number;
  readonly sent: number;
  readonly sentMoreThanOnce: readonly string[];
  readonly neverSent: readonly string[];
}

export async function verifyOrders(
  doc: DynamoDBDocumentClient,
  table: string,
  workload: Workload,
  transitionsApplied: number,
): Promise<OrderEffects> {
  const byNo = new Map((await scanAll(doc, table)).map((i) => [String(i['orderNo']), i]));
  const paidMoreThanOnce: string[] = [];
  const neverPaid: string[] = [];
  for (const order of workload.orders) {
    const item = byNo.get(order.orderNo);
    if (item?.['status'] !== 'PAID') neverPaid.push(order.orderNo);
    else if (Number(item['version']) !== 2) paidMoreThanOnce.push(order.orderNo);
  }
  const wronglyPaid = workload.otherOrders.filter((o) => byNo.get(o.orderNo)?.['status'] === 'PAID').map((o) => o.orderNo);
  return {
    expected: workload.orders.length,
    paid: workload.orders.length - neverPaid.length,
    transitionsApplied,
    paidMoreThanOnce,
    neverPaid,
    wronglyPaid,
  };
}

function ledgerChecks(ledger: Item[], workload: Workload) {
  const expected = new Map(workload.orders.map((o) => [o.orderNo, o]));
  const seen = new Set<string>();
  const unexpectedLedger: string[] = [];
  const wrongPoints: string[] = [];
  for (const item of ledger) {
    const orderNo = String(item['orderNo']);
    const order = expected.get(orderNo);
    if (order === undefined) unexpectedLedger.push(orderNo);
    else if (Number(item['points']) !== pointsFor(order.amount)) wrongPoints.push(orderNo);
    seen.add(orderNo);
  }
  const ordersWithoutPoints = workload.orders.filter((o) => !seen.has(o.orderNo)).map((o) => o.orderNo);
  return { unexpectedLedger, wrongPoints, ordersWithoutPoints };
}

export async function verifyPoints(doc: DynamoDBDocumentClient, table: string, workload: Workload): Promise<PointsEffects> {
  const items = await scanAll(doc, table);
  const ledger = items.filter((i) => String(i['pk']).startsWith('order#'));
  const balances = items.filter((i) => String(i['pk']).startsWith('customer#'));
  const sums = new Map<string, number>();
  for (const l of ledger) {
    const customer = String(l['customerId']);
    sums.set(customer, (sums.get(customer) ?? 0) + Number(l['points']));
  }
  const balanceMismatches: string[] = [];
  for (const b of balances) {
    const customer = String(b['customerId']);
    if (Number(b['points']) !== (sums.get(customer) ?? 0)) balanceMismatches.push(customer);
    sums.delete(customer);
  }
  // A ledger item whose customer has no balance item is a half-applied award.
  for (const [customer, sum] of sums) if (sum !== 0) balanceMismatches.push(customer);
  return {
    expected: workload.orders.length,
    ledgerItems: ledger.length,
    ...ledgerChecks(ledger, workload),
    customers: balances.length,
    balanceMismatches,
  };
}

export function verifyNotifications(workload: Workload, effects: ExternalEffects): NotificationEffects {
  const sentMoreThanOnce: string[] = [];
  const neverSent: string[] = [];
  for (const n of workload.notifications) {
    const count = effects.notificationsSent.get(n.notificationId) ?? 0;
    if (count === 0) neverSent.push(n.notificationId);
    if (count > 1) sentMoreThanOnce.push(n.notificationId);
  }
  let sent = 0;
  for (const count of effects.notificationsSent.values()) sent += count;
  return { expected: workload.notifications.length, sent, sentMoreThanOnce, neverSent };
}

export interface OutboxEffects {
  /** PAID orders in the orders table. */
  readonly paid: number;
  /** Outbox items (OrderPaid events written with a PENDING -> PAID transition). */
  readonly outboxItems: number;
  /** Outbox items still PENDING at the end (never published). */
  readonly unpublished: readonly string[];
  /** PAID orders without exactly one OrderPaid outbox item. */
  readonly paidWithoutOneEvent: readonly string[];
  /** PAID orders without exactly one OrderPaid effect in points (one ledger item). */
  readonly paidWithoutOneEffect: readonly string[];
  /** Relay invocations, and stream records the relay's mapping gave up on. */
  readonly relayInvocations: number;
  readonly givenUp: number;
}

/**
 * The outbox, read back: every PAID order has exactly one OrderPaid event in
 * the outbox, published, and exactly one OrderPaid effect in points.
 */
export async function verifyOutbox(
  doc: DynamoDBDocumentClient,
  tables: { readonly orders: string; readonly points: string },
  relay: { stats(): { invocations: number }; readonly failures: ReadonlyArray<{ records: readonly unknown[] }> },
): Promise<OutboxEffects> {
  const items = await scanAll(doc, tables.orders);
  const outbox = items.filter((i) => i['outboxId'] !== undefined);
  const events = new Map<string, number>();
  for (const item of outbox) {
    const orderNo = String((JSON.parse(String(item['detail'])) as { orderNo?: unknown }).orderNo);
    events.set(orderNo, (events.get(orderNo) ?? 0) + 1);
  }
  const ledger = new Map<string, number>();
  for (const item of await scanAll(doc, tables.points)) {
    if (String(item['pk']).startsWith('order#')) ledger.set(String(item['orderNo']), (ledger.get(String(item['orderNo'])) ?? 0) + 1);
  }
  const paid = items.filter((i) => i['outboxId'] === undefined && i['status'] === 'PAID').map((i) => String(i['orderNo']));
  return {
    paid: paid.length,
    outboxItems: outbox.length,
    unpublished: outbox.filter((i) => i['outboxStatus'] !== 'PUBLISHED').map((i) => String(i['outboxId'])),
    paidWithoutOneEvent: paid.filter((o) => events.get(o) !== 1),
    paidWithoutOneEffect: paid.filter((o) => ledger.get(o) !== 1),
    relayInvocations: relay.stats().invocations,
    givenUp: relay.failures.reduce((sum, f) => sum + f.records.length, 0),
  };
}
