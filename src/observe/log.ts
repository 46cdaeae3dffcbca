/**
 * One structured JSON line per batch (or per event): what happened to each
 * record, by outcome. Raw business keys are left out of it on purpose: with
 * `hashKeys` they may be personal data; the record id is logged instead.
 */
import { acknowledged, summarize, type RecordOutcome, type RecordOutcomeKind } from '../engine/outcomes.js';
import { errorParts } from '../engine/errors.js';

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
}

/** The structured line logged once per batch (SQS) or event (EventBridge). */
export interface BatchLogLine {
  readonly level: 'INFO' | 'WARN';
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
   * Batch sources: things to fix that changed no outcome, each named once (the line is then `WARN`). Today
   * one: the batch was answered less than 100 ms before the invocation's deadline (`answered 4 ms before
   * the deadline; ...`), too close for the runtime to be sure to send the response: give Middy a margin.
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

function errorOf(outcome: RecordOutcome): RecordLogEntry['error'] {
  return 'error' in outcome && outcome.error !== undefined ? errorParts(outcome.error) : undefined;
}

export function logEntry(outcome: RecordOutcome, id: string | undefined): RecordLogEntry {
  const error = errorOf(outcome);
  return {
    messageId: outcome.messageId,
    outcome: outcome.kind,
    ...(id === undefined ? {} : { id }),
    ...(outcome.kind === 'not-started' ? { reason: outcome.reason } : {}),
    ...(outcome.kind === 'duplicate' && outcome.fromCache ? { replay: true } : {}),
    ...(error === undefined ? {} : { error }),
  };
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
  return {
    level: retried > 0 ? 'WARN' : 'INFO',
    message: 'effectively-once',
    source,
    consumer,
    strategy,
    ...(requests === undefined ? {} : { requests }),
    counts: summarize(outcomes),
    retried,
    durationMs,
    records: outcomes.map((o) => logEntry(o, idOf(o))),
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
 * that went wrong.
 */
export function withNotes(line: BatchLogLine, notes: LineNotes, remainingMs: number): BatchLogLine {
  const all = [...(notes.warnings ?? []), ...(deadlineWarnings(remainingMs) ?? [])];
  const warnings = all.length === 0 ? undefined : all;
  const warn = notes.warn === true || warnings !== undefined;
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
