/**
 * The reference service's messages and events, with the checks each consumer
 * runs on them. A message that fails a check throws: the record fails alone,
 * is retried, and lands in the DLQ with the reason in the logs.
 */

/** Body of a payments queue message (one per paid order). */
export interface PaymentMessage {
  readonly orderNo: string;
  /** Amount paid, in currency units. */
  readonly amount: number;
  readonly customerId: string;
  /** When the payment was taken, epoch ms. */
  readonly paidAt: number;
}

/** Detail of the `OrderPaid` event payments publishes and points consumes. */
export interface OrderPaid {
  readonly orderNo: string;
  readonly customerId: string;
  readonly amount: number;
}

/** Body of a notifications queue message. */
export interface NotificationMessage {
  /** The business identity of the notification: the idempotency key. */
  readonly notificationId: string;
  readonly orderNo: string;
  readonly channel: string;
  readonly text: string;
}

/** EventBridge `source` of the events the payments function publishes. */
export const ORDER_EVENTS_SOURCE = 'effectively-once.payments';
/** EventBridge `detail-type` of {@link OrderPaid}. */
export const ORDER_PAID = 'OrderPaid';

type Fields = Readonly<Record<string, 'string' | 'number'>>;

/** Checks that `value` is an object whose listed fields have the listed types. */
function check<T>(what: string, value: unknown, fields: Fields): T {
  if (typeof value !== 'object' || value === null) throw new Error(`${what}: expected an object.`);
  const record = value as Record<string, unknown>;
  for (const [name, type] of Object.entries(fields)) {
    const field = record[name];
    const ok = type === 'number' ? typeof field === 'number' && Number.isFinite(field) : typeof field === 'string' && field !== '';
    if (!ok) throw new Error(`${what}: field "${name}" must be a ${type === 'number' ? 'finite number' : 'non-empty string'}.`);
  }
  return value as T;
}

/** @throws Error naming the first missing or mistyped field. */
export function parsePayment(value: unknown): PaymentMessage {
  return check('payment message', value, { orderNo: 'string', amount: 'number', customerId: 'string', paidAt: 'number' });
}

/** @throws Error naming the first missing or mistyped field. */
export function parseOrderPaid(value: unknown): OrderPaid {
  return check('OrderPaid detail', value, { orderNo: 'string', customerId: 'string', amount: 'number' });
}

/** @throws Error naming the first missing or mistyped field. */
export function parseNotification(value: unknown): NotificationMessage {
  return check('notification message', value, {
    notificationId: 'string',
    orderNo: 'string',
    channel: 'string',
    text: 'string',
  });
}

/**
 * A key field of an object of unknown shape, for `key` functions:
 * `undefined` unless it is a string or a number, so the middleware reports a
 * missing key for that record alone.
 */
export function keyField(value: unknown, name: string): string | number | undefined {
  const field = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === 'string' || typeof field === 'number' ? field : undefined;
}
