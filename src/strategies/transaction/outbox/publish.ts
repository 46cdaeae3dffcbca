/**
 * Publishing outbox entries with `PutEvents`: batches of at most 10 entries
 * (and 256 KB, EventBridge's request limits), then each failed entry once
 * more on its own. `PutEvents` reports refused entries in its response
 * instead of throwing, so every entry's fate is read from `Entries[i]`.
 */
import { entrySize } from './item.js';

/** One `PutEvents` entry, as the relay builds it. */
export interface OutboxPutEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName?: string;
  readonly Time?: Date;
}

/** What the relay reads from a `PutEvents` response. */
export interface PutEventsResult {
  readonly FailedEntryCount?: number | undefined;
  readonly Entries?:
    | ReadonlyArray<{
        readonly EventId?: string | undefined;
        readonly ErrorCode?: string | undefined;
        readonly ErrorMessage?: string | undefined;
      }>
    | undefined;
}

/** Sends one `PutEvents` request. */
export type SendPutEvents = (entries: readonly OutboxPutEntry[]) => Promise<PutEventsResult>;

/** EventBridge's limits on one `PutEvents` request. */
export const PUT_EVENTS_MAX_ENTRIES = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;

/** The outcome of one entry: published, or what refused it last (EventBridge's `ErrorCode`, or the name of the error a request threw). */
export type EntryOutcome =
  | { readonly published: true }
  | { readonly published: false; readonly error: Error; readonly code: string; readonly message: string };

/** Consecutive chunks of at most 10 entries and 256 KB. */
export function chunkEntries(entries: readonly OutboxPutEntry[]): OutboxPutEntry[][] {
  const chunks: OutboxPutEntry[][] = [];
  let current: OutboxPutEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entrySize(entry);
    if (current.length === PUT_EVENTS_MAX_ENTRIES || (current.length > 0 && bytes + size > PUT_EVENTS_MAX_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Each entry's outcome in one request; a request that threw refused them all. */
async function sendChunk(send: SendPutEvents, chunk: readonly OutboxPutEntry[]): Promise<EntryOutcome[]> {
  let result: PutEventsResult;
  try {
    result = await send(chunk);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    return chunk.map(() => ({ published: false, error: failure, code: failure.name, message: failure.message }));
  }
  return chunk.map((_entry, i) => {
    const answer = result.Entries?.[i];
    // No answer for an entry, or an error code: not known to be accepted, so not published.
    if (answer?.EventId !== undefined && answer.ErrorCode === undefined) return { published: true };
    const code = answer?.ErrorCode ?? 'NoEventId';
    const message = answer?.ErrorCode === undefined ? 'no EventId in the response' : (answer.ErrorMessage ?? '');
    return { published: false, error: new Error(`PutEvents refused the entry: ${`${code} ${message}`.trim()}`), code, message };
  });
}

/**
 * Publishes every entry: in chunks, chunks one after the other, then each
 * refused entry retried alone, once. Returns the outcomes in entry order.
 */
export async function publishEntries(send: SendPutEvents, entries: readonly OutboxPutEntry[]): Promise<EntryOutcome[]> {
  const outcomes: EntryOutcome[] = [];
  for (const chunk of chunkEntries(entries)) outcomes.push(...(await sendChunk(send, chunk)));
  // One after another, as the chunks: a throttled chunk of 100 must not turn into 100 requests at once.
  for (const [i, outcome] of outcomes.entries()) {
    const entry = entries[i];
    if (outcome.published || entry === undefined) continue;
    const [retried] = await sendChunk(send, [entry]);
    if (retried !== undefined) outcomes[i] = retried;
  }
  return outcomes;
}
