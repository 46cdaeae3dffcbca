/**
 * What `outboxRelay()` logs: one structured JSON line per entry `PutEvents`
 * still refused after its retry, and per item it could not read or mark
 * (each one's stream record comes back), on stdout
 * like the middlewares' batch lines, or to a logger of one's own.
 */
import { errorParts } from '../../../engine/errors.js';

/** A line `outboxRelay()` logs: an entry `PutEvents` refused, or an item it could not read or mark. */
export type OutboxRelayLogLine = OutboxEntryRefusedLine | OutboxItemFailedLine;

/** The line logged for an outbox entry `PutEvents` refused (after its one retry). */
export interface OutboxEntryRefusedLine {
  readonly level: 'WARN';
  readonly message: 'outbox entry refused';
  readonly outboxId: string;
  /** The outbox table. */
  readonly table: string;
  /** The stream record reported for retry. */
  readonly sequenceNumber: string;
  /** EventBridge's `ErrorCode` and `ErrorMessage`, or the name and message of the error the request threw. */
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * The line logged for an outbox item the relay could not handle: one it
 * cannot read (`malformed`: never published) or one published whose mark or
 * delete failed (`not marked`: it is published again when the stream
 * redelivers it). Either way its stream record comes back. Never the payload.
 */
export interface OutboxItemFailedLine {
  readonly level: 'ERROR';
  readonly message: 'outbox item malformed' | 'outbox item not marked';
  /** The item's `outboxId` (empty when the malformed item has none readable). */
  readonly outboxId: string;
  /** The outbox table (empty when it cannot be read from the record). */
  readonly table: string;
  /** The stream record reported for retry. */
  readonly sequenceNumber: string;
  /** The name and message of the error. */
  readonly error: { readonly name: string; readonly message: string };
}

/** One ERROR line for an item the relay could not read or mark: ids and the error, never the payload. */
export function itemFailed(
  message: OutboxItemFailedLine['message'],
  where: { readonly outboxId: string; readonly table: string; readonly sequenceNumber: string },
  error: unknown,
): OutboxItemFailedLine {
  return { level: 'ERROR', message, ...where, error: errorParts(error) };
}

/** Receives each {@link OutboxRelayLogLine}. */
export type OutboxRelayLogger = (line: OutboxRelayLogLine) => void;

/** Default: one JSON line on stdout, which Lambda ships to CloudWatch Logs (the middlewares' `jsonLineLogger`). */
export const relayJsonLogger: OutboxRelayLogger = (line) => {
  console.log(JSON.stringify(line));
};
