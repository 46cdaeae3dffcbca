/**
 * `outboxRelay()`: the handler behind a DynamoDB Streams mapping on the table `tx.outbox()` writes to.
 * `@aws-sdk/client-eventbridge` (an optional peer) is imported only when the relay first publishes.
 */
import type { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { Clock } from '../../../engine/clock.js';
import { checkOptions, hasMethods, is, type RulesOf } from '../../../engine/options.js';
import { readOutboxImage, type PendingOutboxEntry } from './item.js';
import { OUTBOX_ATTRIBUTES } from '../../../stores/dynamodb/layout.js';
import { publishEntries, type EntryOutcome, type OutboxPutEntry, type PutEventsResult, type SendPutEvents } from './publish.js';
import { safeLog } from '../../../observe/log.js';
import { settleAll, type Candidate } from './mark.js';
import { itemFailed, relayJsonLogger, type OutboxRelayLogger } from './relay-log.js';
import { metricsPluginRule, type MetricsPlugin } from '../../../observe/metrics-plugin.js';

export type { OutboxEntryRefusedLine, OutboxItemFailedLine, OutboxRelayLogLine, OutboxRelayLogger } from './relay-log.js';

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
  readonly retentionMs?: number;
  /** Bus for items that name none. Default: the account's default bus. */
  readonly eventBusName?: string;
  /** The outbox table; default read from each stream record's `eventSourceARN`. */
  readonly tableName?: string;
  /** Clock for `publishedAt` and the TTL. Default the system clock. */
  readonly clock?: Clock;
  /**
   * Receives one line per entry `PutEvents` still refused after its retry,
   * and per item the relay could not read or mark (see
   * {@link OutboxRelayLogLine}). Default: a JSON line on stdout; `false`: none.
   */
  readonly logger?: OutboxRelayLogger | false;
  /**
   * One metrics document per invocation (`OutboxPublished`, `OutboxRefused`,
   * `OutboxMalformed`, `OutboxMarkFailed`; dimension `Source: outboxRelay`), as
   * the middlewares' `metrics` option: `emfMetrics({...})` or
   * `powertoolsMetrics(metrics)`. Default: none.
   */
  readonly metrics?: MetricsPlugin;
}

/** The relay handler: a plain Lambda handler, also usable as a Middy handler. */
export type OutboxRelayHandler = (event: DynamoDBStreamEvent, context?: unknown) => Promise<DynamoDBBatchResponse>;

const RULES = {
  eventBridge: { ...hasMethods('an EventBridgeClient (an object with send())', 'send'), required: true },
  client: { ...hasMethods('a DynamoDBDocumentClient', 'send'), required: true },
  afterPublish: is.oneOf('mark', 'delete'),
  retentionMs: is.retentionMs,
  eventBusName: is.nonEmptyString,
  tableName: is.nonEmptyString,
  clock: hasMethods('a Clock (an object with now())', 'now'),
  logger: { expected: 'a function or false', check: (v: unknown) => v === false || typeof v === 'function' },
  metrics: metricsPluginRule,
} satisfies RulesOf<OutboxRelayOptions>;

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
      `outboxRelay: cannot read the table name from eventSourceARN "${record.eventSourceARN ?? ''}"; set the "tableName" option.`,
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
  const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
  return { index, entry, table: tableOf(record, table), key: unmarshall(keys as Image), sequenceNumber };
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

/** One line per entry `PutEvents` refused to the end: its record comes back, and someone should know why. */
function logRefusals(logger: OutboxRelayLogger | false, live: readonly Candidate[], outcomes: readonly EntryOutcome[]): void {
  live.forEach((candidate, i) => {
    const outcome = outcomes[i];
    if (outcome === undefined || outcome.published) return;
    const error = { code: outcome.code, message: outcome.message };
    safeLog(logger, { level: 'WARN', message: 'outbox entry refused', ...whereOf(candidate), error });
  });
}

/** Where a candidate's item is, as a log line names it. */
function whereOf(candidate: Candidate): { outboxId: string; table: string; sequenceNumber: string } {
  return { outboxId: candidate.entry.id, table: candidate.table, sequenceNumber: candidate.sequenceNumber };
}

/** The outbox id and table of a record whose item could not be read, as far as they can be read. */
function malformedAt(record: DynamoDBRecord, table: string | undefined): { outboxId: string; table: string; sequenceNumber: string } {
  const id = record.dynamodb?.NewImage?.[OUTBOX_ATTRIBUTES.id]?.S ?? '';
  let name = '';
  try {
    name = tableOf(record, table);
  } catch {
    // The table name is what could not be read: the line says so by leaving it empty.
  }
  return { outboxId: id, table: name, sequenceNumber: record.dynamodb?.SequenceNumber ?? '' };
}

/** The records' outbox items; `malformed` hears of each record whose item cannot be read. */
function readCandidates(
  records: readonly DynamoDBRecord[],
  table: string | undefined,
  malformed: (index: number, record: DynamoDBRecord, error: unknown) => void,
): Candidate[] {
  const candidates: Candidate[] = [];
  records.forEach((record, index) => {
    try {
      const candidate = candidateOf(record, index, table);
      if (candidate !== undefined) candidates.push(candidate);
    } catch (error) {
      malformed(index, record, error);
    }
  });
  return candidates;
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
    const logger = options.logger ?? relayJsonLogger;
    const failed = new Set<number>();
    const candidates = readCandidates(event.Records, options.tableName, (index, record, error) => {
      failed.add(index); // a malformed outbox item fails alone (and stops its shard there)
      safeLog(logger, itemFailed('outbox item malformed', malformedAt(record, options.tableName), error));
    });
    const malformed = failed.size;
    // Everything from a malformed item on is reported and redelivered: publishing it now would only publish it twice.
    const stop = Math.min(Infinity, ...failed);
    const live = candidates.filter((c) => c.index < stop);
    const entries = live.map((c) => putEntry(c.entry, options.eventBusName));
    const outcomes = await publishEntries(send, entries);
    logRefusals(logger, live, outcomes);
    const markFailed = await settleAll(options, live, outcomes, (candidate, error) => {
      failed.add(candidate.index);
      safeLog(logger, itemFailed('outbox item not marked', whereOf(candidate), error));
    });
    live.forEach((candidate, i) => {
      if (outcomes[i]?.published !== true) failed.add(candidate.index);
    });
    const published = outcomes.filter((o) => o.published).length;
    options.metrics?.writeData(
      [
        { name: 'OutboxPublished', unit: 'Count', value: published },
        { name: 'OutboxRefused', unit: 'Count', value: outcomes.length - published },
        { name: 'OutboxMalformed', unit: 'Count', value: malformed },
        { name: 'OutboxMarkFailed', unit: 'Count', value: markFailed },
      ],
      { Source: 'outboxRelay' },
    );
    return failuresFrom(event.Records, failed);
  };
}
