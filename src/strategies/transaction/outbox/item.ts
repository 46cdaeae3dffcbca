/**
 * The transactional outbox, its pure part: the outbox item's id and layout
 * (written by `tx.outbox()`), and reading one back from a stream image (by
 * the relay). No AWS imports: the relay's I/O lives in src/outbox/.
 */
import { ItemTooLargeError } from '../../../engine/errors.js';
import { checkOptions, is, isPlainObject, type OptionRules } from '../../../engine/options.js';
import { sha256 } from '../../../engine/hashing.js';
import { OUTBOX_ATTRIBUTES } from '../../../stores/dynamodb/layout.js';

/** The event an outbox item holds: what the relay hands to EventBridge `PutEvents`. */
export interface OutboxEvent {
  /** EventBridge `Source`. */
  readonly source: string;
  /** EventBridge `DetailType`. */
  readonly detailType: string;
  /** EventBridge `Detail`: a JSON object. The relay adds `outboxId` to it. */
  readonly detail: Readonly<Record<string, unknown>>;
  /** EventBridge `EventBusName`; absent: the relay's `eventBusName`, else the default bus. */
  readonly eventBusName?: string;
}

/** Where `tx.outbox()` writes the item. */
export interface OutboxOptions {
  /** The table whose stream the relay reads (often the table of the business write). */
  readonly tableName: string;
  /** That table's partition key attribute; the item's id goes there. Default `'pk'`. */
  readonly keyAttribute?: string;
  /** That table's sort key attribute, if it has one (a string key): the item's id goes there too. */
  readonly sortKeyAttribute?: string;
  /**
   * Tells apart several events one record emits; part of the id. Default the
   * event's `detailType` (so one event per detail type and record).
   */
  readonly name?: string;
}

/** Status of an outbox item: written by the transaction, then marked by the relay. */
export type OutboxStatus = 'PENDING' | 'PUBLISHED';

/** EventBridge's limit on one entry (Source + DetailType + Detail + Time), bytes. */
export const MAX_EVENT_ENTRY_BYTES = 256 * 1024;

/**
 * The outbox id of one event of one record: derived from the consumer, the
 * business key and the event's name only, so a re-run of the record derives
 * the same id and its `attribute_not_exists` put cannot add a second item.
 * Hashed over a JSON array (injective for strings), so no separator in a key
 * can make two records share an id.
 */
export function outboxId(consumer: string, businessKey: string, name: string): string {
  return `outbox#${sha256(JSON.stringify([consumer, businessKey, name]))}`;
}

/** EventBridge's size of an entry: UTF-8 bytes of Source, DetailType and Detail, plus 14 for Time. */
export function entrySize(entry: { readonly Source: string; readonly DetailType: string; readonly Detail: string }): number {
  return Buffer.byteLength(entry.Source) + Buffer.byteLength(entry.DetailType) + Buffer.byteLength(entry.Detail) + 14;
}

const EVENT_RULES: OptionRules = {
  source: { ...is.nonEmptyString, required: true },
  detailType: { ...is.nonEmptyString, required: true },
  detail: { expected: 'a JSON object', required: true, check: isPlainObject },
  eventBusName: is.nonEmptyString,
};

const OPTION_RULES: OptionRules = {
  tableName: { ...is.nonEmptyString, required: true },
  keyAttribute: is.nonEmptyString,
  sortKeyAttribute: is.nonEmptyString,
  name: is.nonEmptyString,
};

/**
 * The detail as the JSON text EventBridge gets, with `outboxId` in it. Checked
 * here, in the handler: a detail that cannot be serialised (a BigInt, a cycle)
 * or that serialises to something else than an object holding the id (a
 * `toJSON`) would otherwise be committed and refused by every relay attempt.
 */
function detailText(detail: Readonly<Record<string, unknown>>, id: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify({ ...detail, outboxId: id });
  } catch (err) {
    throw new TypeError(`tx.outbox(): the event's detail cannot be serialised to JSON (${(err as Error).message}).`, { cause: err });
  }
  const back: unknown = text === undefined ? undefined : JSON.parse(text);
  if (!isPlainObject(back) || back['outboxId'] !== id) {
    throw new TypeError(
      "tx.outbox(): the event's detail must serialise to a JSON object (a toJSON() that returns something else is refused).",
    );
  }
  return text as string;
}

/** Who writes the item and when. */
export interface OutboxOrigin {
  readonly consumer: string;
  readonly businessKey: string;
  readonly now: number;
}

/**
 * The outbox item for `event`, keyed by its id. `Detail` is stored as the
 * JSON text the relay sends (with `outboxId` in it), so the stream image
 * needs no conversion and an event too large for EventBridge fails here, in
 * the handler, not later in the relay.
 * @throws TypeError for a bad event or option; ItemTooLargeError over 256 KB.
 */
export function outboxItem(event: OutboxEvent, options: OutboxOptions, origin: OutboxOrigin): Record<string, unknown> {
  checkOptions('tx.outbox() event', event, EVENT_RULES);
  checkOptions('tx.outbox()', options, OPTION_RULES);
  const keyAttribute = options.keyAttribute ?? 'pk';
  if (options.sortKeyAttribute === keyAttribute) {
    throw new TypeError(`tx.outbox(): option "sortKeyAttribute" must differ from the partition key attribute "${keyAttribute}".`);
  }
  const id = outboxId(origin.consumer, origin.businessKey, options.name ?? event.detailType);
  const detail = detailText(event.detail, id);
  const size = entrySize({ Source: event.source, DetailType: event.detailType, Detail: detail });
  if (size > MAX_EVENT_ENTRY_BYTES) {
    throw new ItemTooLargeError(`tx.outbox(): the event is ${size} bytes, over EventBridge's 256 KB.`, size, MAX_EVENT_ENTRY_BYTES, {
      key: origin.businessKey,
    });
  }
  const a = OUTBOX_ATTRIBUTES;
  return {
    [keyAttribute]: id,
    ...(options.sortKeyAttribute === undefined ? {} : { [options.sortKeyAttribute]: id }),
    [a.id]: id,
    [a.status]: 'PENDING' satisfies OutboxStatus,
    [a.createdAt]: origin.now,
    [a.source]: event.source,
    [a.detailType]: event.detailType,
    [a.detail]: detail,
    ...(event.eventBusName === undefined ? {} : { [a.eventBusName]: event.eventBusName }),
  };
}

/** An outbox item as the relay reads it from a stream image. */
export interface PendingOutboxEntry {
  readonly id: string;
  readonly createdAt: number;
  readonly source: string;
  readonly detailType: string;
  readonly detail: string;
  readonly eventBusName?: string;
}

/**
 * Reads an unmarshalled stream image as an outbox item: `undefined` when it
 * is not one (no `outboxId`: another item of the table), a `TypeError` when
 * it claims to be one but is malformed.
 */
export function readOutboxImage(image: Readonly<Record<string, unknown>>): PendingOutboxEntry | undefined {
  const a = OUTBOX_ATTRIBUTES;
  const id = image[a.id];
  if (id === undefined) return undefined;
  const text = (name: string): string => {
    const value = image[name];
    if (typeof value !== 'string' || value === '') throw new TypeError(`Outbox item ${String(id)}: "${name}" must be a non-empty string.`);
    return value;
  };
  const createdAt = image[a.createdAt];
  const bus = image[a.eventBusName];
  return {
    id: text(a.id),
    createdAt: typeof createdAt === 'number' ? createdAt : Number(createdAt ?? 0),
    source: text(a.source),
    detailType: text(a.detailType),
    detail: text(a.detail),
    ...(typeof bus === 'string' && bus !== '' ? { eventBusName: bus } : {}),
  };
}
