/**
 * notifications (SQS standard, claim strategy).
 *
 * Calls an external side effect once per notification id. The claim is taken
 * before the call and completed after it, so a duplicate delivery is
 * acknowledged without calling again; a failed call releases the claim and
 * fails the record, so only that record is retried.
 *
 * The claim cannot make a side effect outside DynamoDB atomic: if the
 * function crashes after the call but before completing the claim, the retry
 * (once the lease has passed) calls again. Pass the notification id to the
 * provider as its idempotency key where it accepts one.
 */
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { eachRecord, jsonBody, sqsIdempotency, type BatchLogger, type MetricsOption } from 'effectively-once';
import { sharedDocumentClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { keyField, parseNotification, type NotificationMessage } from './shared/messages.js';
import { leaseFrom, storeFrom, type StoreDeps } from './shared/store.js';

/** The external side effect: sends one notification, rejects when it was not sent. */
export type SendNotification = (notification: NotificationMessage) => Promise<void>;

/** Dependencies of {@link createNotificationsHandler}. */
export interface NotificationsDeps extends StoreDeps {
  readonly send: SendNotification;
  /** Records sent at once within a batch. Default 4: gentle on the provider. */
  readonly concurrency?: number;
  /** The middleware's per-batch log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
  /** The middleware's EMF metrics per batch/event (docs/metrics.md); default EMF on stdout, `false` for none. */
  readonly metrics?: MetricsOption;
}

/** Consumer name in idempotency record ids. */
export const NOTIFICATIONS_CONSUMER = 'notifications';

/**
 * The default side effect in Lambda: one structured line to an "outbox" log
 * stream (standing in for an HTTP call to a provider).
 */
export function outboxSender(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): SendNotification {
  return async (notification) => {
    write(JSON.stringify({ outbox: 'notification', ...notification }));
  };
}

/**
 * Builds the notifications handler (a middy handler for SQS batches).
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { createNotificationsHandler } from './notifications.js';
 * import type { NotificationMessage } from './shared/messages.js';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const sent: NotificationMessage[] = [];
 * const handler = createNotificationsHandler({ client, tables: { idempotency: 'idem' }, send: async (n) => void sent.push(n) });
 * ```
 */
export function createNotificationsHandler(deps: NotificationsDeps) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store: storeFrom(deps),
        consumer: NOTIFICATIONS_CONSUMER,
        strategy: 'claim',
        key: (record) => keyField(jsonBody(record), 'notificationId'),
        ...leaseFrom(deps),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
      }),
    )
    .handler(
      eachRecord(
        async (record) => {
          await deps.send(parseNotification(jsonBody(record)));
        },
        { concurrency: deps.concurrency ?? 4 },
      ),
    );
}

/** Dependencies from the Lambda environment: `IDEMPOTENCY_TABLE`; the side effect is the outbox log. */
export function notificationsDepsFromEnv(env: Env = process.env): NotificationsDeps {
  return {
    client: sharedDocumentClient(env),
    tables: { idempotency: requireEnv('IDEMPOTENCY_TABLE', env) },
    send: outboxSender(),
  };
}

/** The Lambda entry point (`functions/notifications.handler` in serverless.yml). */
export const handler = lazyHandler(() => createNotificationsHandler(notificationsDepsFromEnv()));
