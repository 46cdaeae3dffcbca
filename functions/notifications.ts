/**
 * notifications (SQS standard, claim strategy).
 *
 * Calls an external side effect once per notification id. The claim is taken
 * before the call and completed after it, so a duplicate delivery is
 * acknowledged without calling again; a failed call releases the claim and
 * fails the record, so only that record is retried.
 *
 * A message that is not a notification (a field missing) never heals: with
 * an SQS client it goes straight to the DLQ as a `PermanentError`, instead of
 * burning every receive; a failed send backs off exponentially per message.
 *
 * The claim cannot make a side effect outside DynamoDB atomic: if the
 * function crashes after the call but before completing the claim, the retry
 * (once the lease has passed) calls again. Pass the notification id to the
 * provider as its idempotency key where it accepts one.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  backoff,
  deadLetter,
  eachRecord,
  emfMetrics,
  jsonBody,
  PermanentError,
  sqsIdempotency,
  type BatchLogger,
  type SqsIdempotencyOptions,
  claim,
} from 'effectively-once';
import { sharedDocumentClient, sharedSqsClient } from './shared/aws.js';
import { requireEnv, type Env } from './shared/env.js';
import { lazyHandler } from './shared/lazy.js';
import { middyOptions } from './shared/middy.js';
import { keyField, parseNotification, type NotificationMessage } from './shared/messages.js';
import { leaseFrom, storeFrom, type StoreDeps } from './shared/store.js';

/** The middleware's option types, reached through its options (the package exports the main ones only). */
type MetricsOption = NonNullable<SqsIdempotencyOptions['metrics']>;
type BackoffOptions = Parameters<typeof backoff>[0];

/** The external side effect: sends one notification, rejects when it was not sent. */
export type SendNotification = (notification: NotificationMessage) => Promise<void>;

/** Dependencies of {@link createNotificationsHandler}. */
export interface NotificationsDeps extends StoreDeps {
  readonly send: SendNotification;
  /** Records sent at once within a batch. Default 4: gentle on the provider. */
  readonly concurrency?: number;
  /** The middleware's per-batch log line; default JSON on stdout, `false` for none. */
  readonly logger?: BatchLogger | false;
  /** The middleware's metrics plug-in (docs/metrics.md); default `emfMetrics()` (EMF on stdout), `false` for none. */
  readonly metrics?: MetricsOption | false;
  /** Permanent failures to the queue's DLQ and per-message backoff go through it. Absent: neither (the queue's redrive only). */
  readonly sqs?: SQSClient;
  /** Overrides {@link NOTIFICATIONS_BACKOFF} (the local run shortens it as it shortens visibility timeouts). */
  readonly backoff?: Pick<BackoffOptions, 'baseSeconds' | 'maxSeconds' | 'random'>;
}

/** Backoff of a failed send: up to 2 s after the first receive, doubling, at most 5 min. */
export const NOTIFICATIONS_BACKOFF = { baseSeconds: 2, maxSeconds: 300 } as const;

/** The SQS options when the deps have a client: the DLQ comes from the queue's redrive policy. */
function sqsOptions(deps: NotificationsDeps) {
  if (deps.sqs === undefined) return {};
  return {
    deadLetter: deadLetter({ sqs: deps.sqs }),
    backoff: backoff({ sqs: deps.sqs, ...NOTIFICATIONS_BACKOFF, ...deps.backoff }),
  };
}

/** The notification in a record; a body that is not one is a permanent failure (retrying cannot fix it). */
function notificationOf(body: unknown): NotificationMessage {
  try {
    return parseNotification(body);
  } catch (err) {
    throw new PermanentError(err instanceof Error ? err.message : String(err), { cause: err });
  }
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
  return middy<SQSEvent, SQSBatchResponse>(middyOptions)
    .use(
      sqsIdempotency({
        store: storeFrom(deps),
        consumer: NOTIFICATIONS_CONSUMER,
        strategy: claim(),
        key: (record) => keyField(jsonBody(record), 'notificationId'),
        ...leaseFrom(deps),
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.metrics === false ? {} : { metrics: deps.metrics ?? emfMetrics() }),
        ...sqsOptions(deps),
      }),
    )
    .handler(
      eachRecord(
        async (record) => {
          await deps.send(notificationOf(jsonBody(record)));
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
    sqs: sharedSqsClient(),
  };
}

/** The Lambda entry point (`functions/notifications.handler` in serverless.yml). */
export const handler = lazyHandler(() => createNotificationsHandler(notificationsDepsFromEnv()));
