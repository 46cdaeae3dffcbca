/**
 * One structured JSON line per batch (or per event): what happened to each
 * record, by outcome. Raw business keys are left out of it on purpose: with
 * `hashKeys` they may be personal data; the record id is logged instead.
 */
import { acknowledged, summarize, type RecordOutcome, type RecordOutcomeKind } from '../engine/outcomes.js';
import { errorParts, type IdempotencyTableNotFoundError } from '../engine/errors.js';

/** One record in a {@link BatchLogLine}. */
export interface RecordLogEntry {
  readonly messageId: string;
  readonly outcome: RecordOutcomeKind;
  /** Idempotency record id (`consumer#key`, hashed with `hashKeys`). */
  readonly id?: string;
  /** Why a not-started record was not started. */
  readonly reason?: string;
  /** True when a duplicate was answered from the warm-container cache, or an EventBridge replay. */
  readonly replay?: boolean;
  readonly error?: { readonly name: string; readonly message: string };
  /** A completed record whose result could not be stored (too large, not JSON): why. Its effect happened; a duplicate gets no result. */
  readonly resultNotStored?: { readonly name: string; readonly message: string };
}

/** The structured line logged once per batch (SQS) or event (EventBridge). */
export interface BatchLogLine {
  /**
   * `ERROR`: a record came back for something only an operator can fix (today: the idempotency table does not
   * exist, {@link tableNotFound}); `WARN`: a record came back, or the line has `warnings`; else `INFO`.
   */
  readonly level: 'INFO' | 'WARN' | 'ERROR';
  readonly message: 'effectively-once';
  /** The source's name (its adapter's `name`): `sqs`, `eventbridge`, `kinesis`, `dynamodb-streams`, `kafka`. */
  readonly source: string;
  readonly consumer: string;
  readonly strategy: 'claim' | 'transaction';
  /**
   * Batch sources, claim strategy: how this batch's claims and completions were sent, chosen per invocation by its
   * memory size (`batched`: the claims in one request, the completions together once no handler runs;
   * `per-record`: each claim a request of its own, each record completed as its effect ends). What the handler is
   * handed is the same either way.
   */
  readonly requests?: 'batched' | 'per-record';
  readonly counts: Readonly<Record<RecordOutcomeKind, number>>;
  /** Message ids reported back to the queue for retry. */
  readonly retried: number;
  readonly durationMs: number;
  readonly records: readonly RecordLogEntry[];
  /** SQS `backoff`: records whose visibility timeout was set from their backoff. */
  readonly backedOff?: number;
  /** SQS `deadLetter` / `backoff`: requests to SQS that failed (the records concerned came back). */
  readonly sqsErrors?: readonly string[];
  /**
   * Things to fix that changed no outcome, each named once (the line is then `WARN`): a completed record
   * whose result was not stored (`record m-1 (payments#order-42): completed, but its result was not stored
   * ...`); on batch sources, a batch answered less than 100 ms before the invocation's deadline (`answered
   * 4 ms before the deadline; ...`), too close for the runtime to be sure to send the response: give Middy a margin.
   */
  readonly warnings?: readonly string[];
}

/**
 * A batch answered closer than this to the invocation's deadline, ms, gets a
 * warning in its line: the runtime may time out before it has sent the
 * response, and then the whole batch comes back.
 */
export const NEAR_DEADLINE_MS = 100;

/**
 * The line's warnings for a batch answered with `remainingMs` left
 * (`Infinity` when no deadline is known: none). Middy's default early
 * timeout answers a hung handler 5 ms before the deadline.
 */
export function deadlineWarnings(remainingMs: number): readonly string[] | undefined {
  if (!(remainingMs < NEAR_DEADLINE_MS)) return undefined;
  const left = Math.max(0, Math.round(remainingMs));
  return [
    `answered ${left} ms before the deadline; the runtime may time out before it sends the response, and then the whole batch comes back: set a margin with middy({ timeoutEarlyInMillis: 500 })`,
  ];
}

/** Receives each {@link BatchLogLine}. */
export type BatchLogger = (line: BatchLogLine) => void;

/** Default logger: one JSON line on stdout, which Lambda ships to CloudWatch Logs. */
export const jsonLineLogger: BatchLogger = (line) => {
  console.log(JSON.stringify(line));
};

/** The `name` of the error a record comes back with while the idempotency table does not exist. */
const TABLE_NOT_FOUND: IdempotencyTableNotFoundError['name'] = 'IdempotencyTableNotFoundError';

/** Whether a record came back because the idempotency table does not exist (its error an `IdempotencyTableNotFoundError`). */
export const tableNotFound = (entry: RecordLogEntry): boolean => entry.error?.name === TABLE_NOT_FOUND;

function errorOf(outcome: RecordOutcome): RecordLogEntry['error'] {
  return 'error' in outcome && outcome.error !== undefined ? errorParts(outcome.error) : undefined;
}

export function logEntry(outcome: RecordOutcome, id: string | undefined): RecordLogEntry {
  const error = errorOf(outcome);
  const unstored = outcome.kind === 'completed' ? outcome.resultNotStored : undefined;
  return {
    messageId: outcome.messageId,
    outcome: outcome.kind,
    ...(id === undefined ? {} : { id }),
    ...(outcome.kind === 'not-started' ? { reason: outcome.reason } : {}),
    ...(outcome.kind === 'duplicate' && outcome.fromCache ? { replay: true } : {}),
    ...(error === undefined ? {} : { error }),
    ...(unstored === undefined ? {} : { resultNotStored: errorParts(unstored) }),
  };
}

/** The warning for a completed record (`record`: how to find it) whose result was not stored, and `why`. */
export function resultNotStoredWarning(record: string, why: { readonly name: string; readonly message: string }): string {
  return `${record}: completed, but its result was not stored (${why.name}: ${why.message}); a duplicate gets no result`;
}

/** The line's warning for each completed record whose result was not stored: its effect happened, so it is acknowledged. */
function unstoredWarnings(records: readonly RecordLogEntry[]): string[] {
  return records.flatMap(({ messageId, id, resultNotStored: why }) =>
    why === undefined ? [] : [resultNotStoredWarning(`record ${messageId}${id === undefined ? '' : ` (${id})`}`, why)],
  );
}

export function batchLine(
  source: BatchLogLine['source'],
  consumer: string,
  strategy: BatchLogLine['strategy'],
  outcomes: readonly RecordOutcome[],
  idOf: (outcome: RecordOutcome) => string | undefined,
  durationMs: number,
  requests?: BatchLogLine['requests'],
): BatchLogLine {
  const retried = outcomes.filter((o) => !acknowledged(o)).length;
  const records = outcomes.map((o) => logEntry(o, idOf(o)));
  const warnings = unstoredWarnings(records);
  const level = records.some(tableNotFound) ? 'ERROR' : retried > 0 || warnings.length > 0 ? 'WARN' : 'INFO';
  return {
    level,
    message: 'effectively-once',
    source,
    consumer,
    strategy,
    ...(requests === undefined ? {} : { requests }),
    counts: summarize(outcomes),
    retried,
    durationMs,
    records,
    ...(warnings.length === 0 ? {} : { warnings }),
  };
}

/** The line's own fields, which a source's notes never set. */
type CoreField =
  | 'level'
  | 'message'
  | 'source'
  | 'consumer'
  | 'strategy'
  | 'requests'
  | 'counts'
  | 'retried'
  | 'durationMs'
  | 'records'
  | 'warnings';

/** What a source's own step adds to its batch line (SQS: `backedOff`, `sqsErrors`), and whether it names something that went wrong. */
export interface LineNotes {
  readonly fields?: Readonly<Omit<Partial<BatchLogLine>, CoreField>>;
  /** The line is then `WARN`. */
  readonly warn?: boolean;
  /** Things to fix that changed no outcome, added to the line's `warnings` (the line is then `WARN`). */
  readonly warnings?: readonly string[];
}

/**
 * A batch line with its source's notes and the deadline warning, read from
 * `remainingMs` as the batch is answered: `WARN` when either names something
 * that went wrong (an `ERROR` line stays `ERROR`).
 */
export function withNotes(line: BatchLogLine, notes: LineNotes, remainingMs: number): BatchLogLine {
  const all = [...(line.warnings ?? []), ...(notes.warnings ?? []), ...(deadlineWarnings(remainingMs) ?? [])];
  const warnings = all.length === 0 ? undefined : all;
  const warn = (notes.warn === true || warnings !== undefined) && line.level !== 'ERROR';
  return { ...line, ...notes.fields, ...(warnings === undefined ? {} : { warnings }), ...(warn ? { level: 'WARN' } : {}) };
}

/**
 * Hands `line` to `logger`, never throwing: the line is an observation of
 * outcomes already settled, so a failing log sink must not turn them into a
 * failed batch or event.
 */
export function safeLog<TLine = BatchLogLine>(logger: ((line: TLine) => unknown) | false, line: TLine): void {
  if (logger !== false) safely(() => logger(line), 'logger', 'the log line was dropped');
}

/**
 * Runs `write` (a log or metrics sink), never throwing: a throw (or a
 * rejected promise from an async sink, which would otherwise be an unhandled
 * rejection) becomes one plain `console.error` line naming the `sink` and what was `dropped`.
 */
export function safely(write: () => unknown, sink: string, dropped: string): void {
  const report = (err: unknown): void => {
    const { name, message } = errorParts(err);
    try {
      console.error(`effectively-once: the ${sink} threw (${name}: ${message}); ${dropped}.`);
    } catch {
      // Nothing is left to report to.
    }
  };
  try {
    const returned = write();
    if (returned instanceof Promise) returned.catch(report);
  } catch (err) {
    report(err);
  }
}
