/**
 * outbox-relay (DynamoDB Streams on the orders table).
 *
 * Publishes the `OrderPaid` events payments wrote to the outbox (in the same
 * transaction as PENDING -> PAID) to the service's bus, then marks them
 * published; TTL removes them a day later. A record it cannot publish is
 * reported by sequence number, so the mapping retries from there (bisecting,
 * then the on-failure queue). An event may be published twice (a crash
 * after `PutEvents`, before the mark); it carries the same `outboxId` each
 * time, and `points` is idempotent on the order number anyway.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { emfMetrics, outboxRelay, type OutboxRelayOptions } from 'effectively-once';
import { sharedDocumentClient, sharedEventBridgeClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { stdoutEventBridge } from './shared/publish.js';

/** The relay's EventBridge client, metrics plug-in and handler types, reached through its options and return type. */
type EventBridgePutEvents = OutboxRelayOptions['eventBridge'];
type MetricsOption = NonNullable<OutboxRelayOptions['metrics']>;
type OutboxRelayHandler = ReturnType<typeof outboxRelay>;

/** Dependencies of {@link createOutboxRelayHandler}. */
export interface OutboxRelayDeps {
  readonly client: DynamoDBDocumentClient;
  readonly eventBridge: EventBridgePutEvents;
  /** The bus `OrderPaid` goes to. */
  readonly busName: string;
  /**
   * The relay's metrics plug-in (docs/outbox.md): one document per invocation (`OutboxPublished`, `OutboxRefused`,
   * `OutboxMalformed`, `OutboxMarkFailed`). Default `emfMetrics()` (EMF on stdout), `false` for none.
   */
  readonly metrics?: MetricsOption | false;
}

/**
 * Builds the relay handler (a Lambda handler for the orders table's stream).
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { createOutboxRelayHandler } from './outbox-relay.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const relay = createOutboxRelayHandler({ client, eventBridge: new EventBridgeClient({}), busName: 'orders' });
 * const { batchItemFailures } = await relay({ Records: [] });
 * ```
 */
export function createOutboxRelayHandler(deps: OutboxRelayDeps): OutboxRelayHandler {
  return outboxRelay({
    eventBridge: deps.eventBridge,
    client: deps.client,
    eventBusName: deps.busName,
    ...(deps.metrics === false ? {} : { metrics: deps.metrics ?? emfMetrics() }),
  });
}

/**
 * Dependencies from the Lambda environment: `EVENT_BUS_NAME`;
 * `PUBLISH_TARGET=stdout` writes events as JSON lines instead (for `invoke local`).
 */
export function outboxRelayDepsFromEnv(env: Env = process.env): OutboxRelayDeps {
  const stdout = env['PUBLISH_TARGET'] === 'stdout';
  return {
    client: sharedDocumentClient(env),
    eventBridge: stdout ? stdoutEventBridge() : sharedEventBridgeClient(),
    busName: stdout ? (env['EVENT_BUS_NAME'] ?? 'local') : requireEnv('EVENT_BUS_NAME', env),
  };
}

/** The Lambda entry point (`functions/outbox-relay.handler` in serverless.yml). */
export const handler = lazyHandler(() => createOutboxRelayHandler(outboxRelayDepsFromEnv()));
