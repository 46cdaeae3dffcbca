/**
 * The workload of a local run, fully decided up front from the seed: the
 * orders, every message the producers send (originals, re-sends under new
 * message ids, poison), which keys fail transiently, which OrderPaid events
 * the producer publishes twice. The run only executes it, so the expected
 * end state is known exactly.
 */
import { paymentMessage } from '../../functions/payments.js';
import type { NotificationMessage, PaymentMessage } from '../../functions/shared/messages.js';
import type { WorkloadOptions } from './options.js';
import { mulberry32, sample, shuffled, intBetween, type Random } from './prng.js';

/** An order as seeded in the orders table. */
export interface SeedOrder {
  readonly orderNo: string;
  readonly customerId: string;
  readonly amount: number;
  readonly status: 'PENDING' | 'CANCELLED';
}

/** Why a send exists. */
export type SendKind = 'original' | 'resend' | 'fifo-dedup-resend' | 'poison';

/** One message a producer sends. */
export interface PlannedSend {
  readonly queue: 'payments' | 'notifications';
  readonly kind: SendKind;
  readonly body: string;
  /** FIFO only. */
  readonly groupId?: string;
  readonly dedupId?: string;
}

/** A message that can never be processed and must end in its queue's DLQ. */
export interface PoisonMessage {
  readonly queue: 'payments' | 'notifications';
  readonly body: string;
  /** What is wrong with it, in words, for the report. */
  readonly defect: string;
}

export interface Workload {
  /** Orders to pay (PENDING): each must end PAID exactly once, with points once. */
  readonly orders: readonly SeedOrder[];
  /** Orders seeded for poison payments (a CANCELLED one, which payment must refuse). */
  readonly otherOrders: readonly SeedOrder[];
  /** Every valid notification, once each: each must be sent exactly once. */
  readonly notifications: readonly NotificationMessage[];
  readonly poison: readonly PoisonMessage[];
  /** All sends, in send order. */
  readonly sends: readonly PlannedSend[];
  /** Keys whose side effect fails on the first attempt. */
  readonly failOnce: {
    readonly publish: ReadonlySet<string>;
    readonly send: ReadonlySet<string>;
    readonly points: ReadonlySet<string>;
  };
  /** Orders whose OrderPaid the producer publishes twice (two events, two ids). */
  readonly republish: ReadonlySet<string>;
  /** The time every payment claims it was taken (fixed: the same seed gives the same bodies). */
  readonly paidAt: number;
}

const PAID_AT = Date.UTC(2025, 0, 1);

function seedOrders(random: Random, count: number): SeedOrder[] {
  const customers = Math.max(1, Math.ceil(count / 8));
  return Array.from({ length: count }, (_, i) => ({
    orderNo: `o-${String(i + 1).padStart(6, '0')}`,
    customerId: `c-${String(intBetween(random, 1, customers)).padStart(5, '0')}`,
    amount: intBetween(random, 5, 500),
    status: 'PENDING' as const,
  }));
}

function payment(order: SeedOrder): PaymentMessage {
  return { orderNo: order.orderNo, amount: order.amount, customerId: order.customerId, paidAt: PAID_AT };
}

function paymentSend(order: SeedOrder, kind: SendKind, dedupSuffix = ''): PlannedSend {
  const m = paymentMessage(payment(order));
  return {
    queue: 'payments',
    kind,
    body: m.MessageBody,
    groupId: m.MessageGroupId,
    dedupId: `${m.MessageDeduplicationId}${dedupSuffix}`,
  };
}

function notificationFor(order: SeedOrder): NotificationMessage {
  return {
    notificationId: `n-${order.orderNo}-paid`,
    orderNo: order.orderNo,
    channel: 'email',
    text: `Order ${order.orderNo} is paid: ${order.amount}.`,
  };
}

const CANCELLED: SeedOrder = { orderNo: 'o-cancelled-1', customerId: 'c-poison', amount: 10, status: 'CANCELLED' };

function poisonMessages(): PoisonMessage[] {
  const missing: SeedOrder = { ...CANCELLED, orderNo: 'o-does-not-exist-1', status: 'PENDING' };
  return [
    { queue: 'payments', body: '{"orderNo": "o-broken-json-1", "amount": ', defect: 'body is not JSON' },
    { queue: 'payments', body: JSON.stringify({ amount: 42, customerId: 'c-1', paidAt: PAID_AT }), defect: 'no orderNo' },
    { queue: 'payments', body: paymentMessage(payment(missing)).MessageBody, defect: 'order does not exist' },
    { queue: 'payments', body: paymentMessage(payment(CANCELLED)).MessageBody, defect: 'order is CANCELLED' },
    { queue: 'notifications', body: 'not json at all', defect: 'body is not JSON' },
    { queue: 'notifications', body: JSON.stringify({ notificationId: 'n-poison-1', orderNo: 'o-1' }), defect: 'no channel/text' },
  ];
}

function poisonSend(p: PoisonMessage, i: number): PlannedSend {
  if (p.queue === 'notifications') return { queue: p.queue, kind: 'poison', body: p.body };
  // FIFO needs a group and a dedup id even for garbage; one group per poison message.
  return { queue: p.queue, kind: 'poison', body: p.body, groupId: `poison-${i}`, dedupId: `poison-${i}` };
}

/** Builds the whole workload from the options; the same options give the same workload. */
export function planWorkload(options: WorkloadOptions): Workload {
  const random = mulberry32(options.seed);
  const orders = seedOrders(random, options.orders);
  const keys = orders.map((o) => o.orderNo);
  const dupCount = Math.round(options.orders * options.dupRate);
  const failCount = Math.round(options.orders * options.failRate);
  const notifications = orders.map(notificationFor);
  const poison = poisonMessages();
  const traffic: PlannedSend[] = [
    ...orders.map((o) => paymentSend(o, 'original')),
    // A producer re-publishing after SQS's 5-minute window: new dedup id, so the queue delivers it again.
    ...sample(random, orders, dupCount).map((o) => paymentSend(o, 'resend', '-after-window')),
    // A re-send inside the window with the same dedup id: FIFO drops it; the consumer never sees it.
    ...sample(random, orders, Math.ceil(dupCount / 4)).map((o) => paymentSend(o, 'fifo-dedup-resend')),
    ...notifications.map((n) => ({ queue: 'notifications' as const, kind: 'original' as const, body: JSON.stringify(n) })),
    ...sample(random, notifications, dupCount).map((n) => ({
      queue: 'notifications' as const,
      kind: 'resend' as const,
      body: JSON.stringify(n),
    })),
  ];
  return {
    orders,
    otherOrders: [CANCELLED],
    notifications,
    poison,
    // Poison goes first: it needs maxReceiveCount visibility timeouts to reach the DLQ, which then
    // overlap with the bulk of the traffic instead of adding a tail to the run.
    sends: [...poison.map(poisonSend), ...shuffled(random, traffic)],
    failOnce: {
      publish: new Set(sample(random, keys, failCount)),
      send: new Set(
        sample(
          random,
          notifications.map((n) => n.notificationId),
          failCount,
        ),
      ),
      points: new Set(sample(random, keys, failCount)),
    },
    republish: new Set(sample(random, keys, dupCount)),
    paidAt: PAID_AT,
  };
}
