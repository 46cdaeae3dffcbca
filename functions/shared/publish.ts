/**
 * Publishing `OrderPaid`. The payments handler depends on a function, so the
 * local run and tests inject their own (an emulated bus, a recorder).
 */
import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ORDER_EVENTS_SOURCE, ORDER_PAID, type OrderPaid } from './messages.js';

/** Publishes one `OrderPaid` event; rejects when it was not accepted. */
export type PublishOrderPaid = (detail: OrderPaid) => Promise<void>;

/**
 * Publishes to an EventBridge bus.
 *
 * `PutEvents` reports a refused entry in `FailedEntryCount` instead of
 * throwing; it is turned into an error here so the record is retried rather
 * than acknowledged with its event lost.
 *
 * @example
 * ```ts
 * import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
 * import { eventBridgePublisher } from './publish.js';
 * const publish = eventBridgePublisher(new EventBridgeClient({}), 'orders');
 * await publish({ orderNo: 'o-1', customerId: 'c-1', amount: 120 });
 * ```
 */
export function eventBridgePublisher(client: EventBridgeClient, busName: string): PublishOrderPaid {
  return async (detail) => {
    const out = await client.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: busName, Source: ORDER_EVENTS_SOURCE, DetailType: ORDER_PAID, Detail: JSON.stringify(detail) }],
      }),
    );
    if ((out.FailedEntryCount ?? 0) > 0) {
      const entry = out.Entries?.[0];
      throw new Error(
        `EventBridge refused OrderPaid for order ${detail.orderNo}: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim(),
      );
    }
  };
}

/**
 * Writes each event as a JSON line instead of publishing it: for
 * `serverless invoke local` without an AWS account (`PUBLISH_TARGET=stdout`).
 */
export function stdoutPublisher(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): PublishOrderPaid {
  return async (detail) => {
    write(JSON.stringify({ published: ORDER_PAID, source: ORDER_EVENTS_SOURCE, detail }));
  };
}
