/**
 * What `outboxRelay()` logs: one structured JSON line per entry `PutEvents`
 * still refused after its retry (its stream record comes back), on stdout
 * like the middlewares' batch lines, or to a logger of one's own.
 */

/** The line logged for an outbox entry `PutEvents` refused (after its one retry). */
export interface OutboxRelayLogLine {
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

/** Receives each {@link OutboxRelayLogLine}. */
export type OutboxRelayLogger = (line: OutboxRelayLogLine) => void;

/** Default: one JSON line on stdout, which Lambda ships to CloudWatch Logs (the middlewares' `jsonLineLogger`). */
export const relayJsonLogger: OutboxRelayLogger = (line) => {
  console.log(JSON.stringify(line));
};
