/**
 * `outboxRelay()`: the Lambda handler behind a DynamoDB Streams mapping on
 * the table `tx.outbox()` writes to. It publishes each new outbox item to
 * EventBridge, then marks it published (or deletes it), and reports the
 * stream records it could not finish so the mapping retries them.
 *
 * `@aws-sdk/client-eventbridge` is an optional peer dependency: this module
 * imports it only when the relay first publishes, so a handler that does not
 * use the outbox never loads it.
 */
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DeleteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { systemClock, toEpochSeconds, type Clock } from '../../engine/clock.js';
import { checkOptions, hasMethods, is, type RulesOf } from '../../engine/options.js';
import { OUTBOX_ATTRIBUTES, readOutboxImage, type OutboxStatus, type PendingOutboxEntry } from './item.js';
import { isAwsError } from '../../stores/dynamodb/refusals.js';
import { publishEntries, type EntryOutcome, type OutboxPutEntry, type PutEventsResult, type SendPutEvents } from './publish.js';
import { safeLog } from '../../observe/log.js';
import { relayJsonLogger, type OutboxRelayLogger } from './relay-log.js';

export type { OutboxRelayLogLine, OutboxRelayLogger } from './relay-log.js';

/**
 * The one thing the relay needs from an EventBridge client (an `EventBridgeClient` is one). Declared by
 * shape, so the package's declarations compile without the optional peer `@aws-sdk/client-eventbridge`.
 */
export interface EventBridgePutEvents {
  send(command: { readonly input: object }): Promise<PutEventsResult>;
}

/** Options of {@link outboxRelay}. */
export interface OutboxRelayOptions {
  /** The EventBridge client `PutEvents` goes through. */
  readonly eventBridge: EventBridgePutEvents;
  /** The DocumentClient that marks or deletes published items. */
  readonly client: DynamoDBDocumentClient;
  /** After publishing: `'mark'` the item PUBLISHED with a TTL (default), or `'delete'` it. */
  readonly afterPublish?: 'mark' | 'delete';
  /** How long a published item is kept before TTL removes it, ms. Default 24 hours. */
  readonly retention?: number;
  /** Bus for items that name none. Default: the account's default bus. */
  readonly eventBusName?: string;
  /** The outbox table; default read from each stream record's `eventSourceARN`. */
  readonly table?: string;
  /** Clock for `publishedAt` and the TTL. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Receives one line per entry `PutEvents` still refused after its retry
   * (see {@link OutboxRelayLogLine}). Default: a JSON line on stdout; `false`: none.
   */
  readonly logger?: OutboxRelayLogger | false;
}

/** The relay handler: a plain Lambda handler, also usable as a Middy handler. */
export type OutboxRelayHandler = (event: DynamoDBStreamEvent, context?: unknown) => Promise<DynamoDBBatchResponse>;

const RULES = {
  eventBridge: { ...hasMethods('an EventBridgeClient (an object with send())', 'send'), required: true },
  client: { ...hasMethods('a DynamoDBDocumentClient', 'send'), required: true },
  afterPublish: is.oneOf('mark', 'delete'),
  retention: is.retentionMs,
  eventBusName: is.nonEmptyString,
  table: is.nonEmptyString,
  clock: hasMethods('a Clock (an object with now())', 'now'),
  logger: { expected: 'a function or false', check: (v: unknown) => v === false || typeof v === 'function' },
} satisfies RulesOf<OutboxRelayOptions>;

const DAY_MS = 86_400_000;
const MARK_CONCURRENCY = 10;

/** A stream record that holds a new outbox item, with where it lives. */
interface Candidate {
  readonly index: number;
  readonly entry: PendingOutboxEntry;
  readonly table: string;
  readonly key: Record<string, unknown>;
}

let putEventsCommand: Promise<typeof PutEventsCommand> | undefined;

function sender(client: EventBridgePutEvents): SendPutEvents {
  return async (entries) => {
    putEventsCommand ??= import('@aws-sdk/client-eventbridge').then((m) => m.PutEventsCommand);
    const Command = await putEventsCommand;
    return client.send(new Command({ Entries: entries.map((e) => ({ ...e })) }));
  };
}

/** `arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>` -> `<name>`. */
function tableOf(record: DynamoDBRecord, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  const name = /:table\/([^/]+)\/stream\//.exec(record.eventSourceARN ?? '')?.[1];
  if (name === undefined)
    throw new TypeError(
      `outboxRelay: cannot read the table name from eventSourceARN "${record.eventSourceARN ?? ''}"; set the "table" option.`,
    );
  return name;
}

type Image = Record<string, AttributeValue>;

/** The outbox item a record inserts, `undefined` for any other record; throws for a malformed one. */
function candidateOf(record: DynamoDBRecord, index: number, table: string | undefined): Candidate | undefined {
  const image = record.dynamodb?.NewImage;
  // Any other item of the table is passed over unread: unmarshalling it costs time and may throw (numbers).
  if (record.eventName !== 'INSERT' || image === undefined || image[OUTBOX_ATTRIBUTES.id] === undefined) return undefined;
  const entry = readOutboxImage(unmarshall(image as Image));
  if (entry === undefined) return undefined;
  const keys = record.dynamodb?.Keys;
  if (keys === undefined) throw new TypeError(`Outbox item ${entry.id}: the stream record has no Keys.`);
  return { index, entry, table: tableOf(record, table), key: unmarshall(keys as Image) };
}

function putEntry(entry: PendingOutboxEntry, defaultBus: string | undefined): OutboxPutEntry {
  const bus = entry.eventBusName ?? defaultBus;
  return {
    Source: entry.source,
    DetailType: entry.detailType,
    Detail: entry.detail,
    Time: new Date(entry.createdAt),
    ...(bus === undefined ? {} : { EventBusName: bus }),
  };
}

/** Marks a published item (unless it is gone already) or deletes it. */
async function settleItem(options: OutboxRelayOptions, candidate: Candidate): Promise<void> {
  const { client } = options;
  if (options.afterPublish === 'delete') {
    await client.send(new DeleteCommand({ TableName: candidate.table, Key: candidate.key }));
    return;
  }
  const now = (options.clock ?? systemClock).now();
  const a = OUTBOX_ATTRIBUTES;
  try {
    await client.send(
      new UpdateCommand({
        TableName: candidate.table,
        Key: candidate.key,
        UpdateExpression: 'SET #s = :published, #p = :now, #e = :expires',
        // Never recreate an item TTL or a delete already removed.
        ConditionExpression: 'attribute_exists(#id)',
        ExpressionAttributeNames: { '#s': a.status, '#p': a.publishedAt, '#e': a.expiresAt, '#id': a.id },
        ExpressionAttributeValues: {
          ':published': 'PUBLISHED' satisfies OutboxStatus,
          ':now': now,
          ':expires': toEpochSeconds(now + (options.retention ?? DAY_MS)),
        },
      }),
    );
  } catch (error) {
    if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error;
  }
}

/** One line per entry `PutEvents` refused to the end: its record comes back, and someone should know why. */
function logRefusals(
  logger: OutboxRelayLogger | false,
  live: readonly Candidate[],
  outcomes: readonly EntryOutcome[],
  records: readonly DynamoDBRecord[],
): void {
  live.forEach((candidate, i) => {
    const outcome = outcomes[i];
    if (outcome === undefined || outcome.published) return;
    safeLog(logger, {
      level: 'WARN',
      message: 'outbox entry refused',
      outboxId: candidate.entry.id,
      table: candidate.table,
      sequenceNumber: records[candidate.index]?.dynamodb?.SequenceNumber ?? '',
      error: { code: outcome.code, message: outcome.message },
    });
  });
}

/**
 * The records to report: from the first that failed to the end of the
 * batch. Lambda resumes a shard at the lowest reported sequence number and
 * redelivers everything after it anyway; naming those too keeps the answer
 * right for a poller that would only retry what is named.
 */
function failuresFrom(records: readonly DynamoDBRecord[], failed: ReadonlySet<number>): DynamoDBBatchResponse {
  const first = Math.min(...failed);
  if (!Number.isFinite(first)) return { batchItemFailures: [] };
  return {
    batchItemFailures: records.slice(first).map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? '' })),
  };
}

/**
 * Builds the outbox relay: for each stream record that inserts an outbox
 * item, `PutEvents` (batches of 10, refused entries retried once alone),
 * then mark or delete the item. Other records are ignored. Each entry
 * still refused is logged (one JSON line, see `logger`). An item is
 * published at least once: a crash after `PutEvents` publishes it again
 * with the same `outboxId` in its detail, which consumers dedup on.
 *
 * @example
 * ```ts
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { outboxRelay } from 'effectively-once';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * export const handler = outboxRelay({ eventBridge: new EventBridgeClient({}), client, eventBusName: 'orders' });
 * ```
 * @throws TypeError for a bad option, naming it.
 */
export function outboxRelay(options: OutboxRelayOptions): OutboxRelayHandler {
  checkOptions('outboxRelay', options, RULES);
  const send = sender(options.eventBridge);
  return async (event) => {
    if (typeof event !== 'object' || event === null || !Array.isArray(event.Records)) {
      throw new TypeError('outboxRelay: the event is not a DynamoDB Streams event (no Records array).');
    }
    const blind = event.Records.find((r) => r?.eventName === 'INSERT' && r.dynamodb?.NewImage === undefined);
    if (blind !== undefined) {
      // An INSERT without its new image may be an outbox item: acknowledging it would drop the event unpublished.
      throw new TypeError(
        `outboxRelay: an INSERT record has no NewImage (StreamViewType ${blind.dynamodb?.StreamViewType ?? 'unknown'}); the outbox table's stream must be NEW_IMAGE or NEW_AND_OLD_IMAGES.`,
      );
    }
    const failed = new Set<number>();
    const candidates: Candidate[] = [];
    event.Records.forEach((record, index) => {
      try {
        const candidate = candidateOf(record, index, options.table);
        if (candidate !== undefined) candidates.push(candidate);
      } catch {
        failed.add(index); // a malformed outbox item fails alone (and stops its shard there)
      }
    });
    // Everything from a malformed item on is reported and redelivered: publishing it now would only publish it twice.
    const stop = Math.min(Infinity, ...failed);
    const live = candidates.filter((c) => c.index < stop);
    const outcomes = await publishEntries(
      send,
      live.map((c) => putEntry(c.entry, options.eventBusName)),
    );
    logRefusals(options.logger ?? relayJsonLogger, live, outcomes, event.Records);
    // A few marks at a time: a batch of 100 items must not open 100 connections at once.
    for (let start = 0; start < live.length; start += MARK_CONCURRENCY) {
      await Promise.all(
        live.slice(start, start + MARK_CONCURRENCY).map(async (candidate, j) => {
          if (outcomes[start + j]?.published !== true) return failed.add(candidate.index);
          // Not marked: the record is retried and the item published again (same outboxId).
          await settleItem(options, candidate).catch(() => failed.add(candidate.index));
          return undefined;
        }),
      );
    }
    return failuresFrom(event.Records, failed);
  };
}
