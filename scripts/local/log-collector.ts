/**
 * Collects the middleware's structured per-batch lines instead of letting
 * thousands of them flood the terminal: written to a JSON-lines file for
 * reading afterwards, and summarised in memory for the report (outcomes per
 * consumer, and what was last logged for each message id: why a message
 * ended in a DLQ).
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { BatchLogger } from '../../src/index.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { RecordOutcomeKind } from '../../src/engine/outcomes.js';

/** Outcome counts per consumer, summed over every logged batch. */
export type OutcomeTotals = Record<string, Partial<Record<RecordOutcomeKind, number>>>;

export interface LogCollector {
  /** The logger to inject into the handlers. */
  readonly logger: BatchLogger;
  /** Where the lines are written, one JSON object per line. */
  readonly path: string;
  readonly totals: OutcomeTotals;
  /** Records given a backoff (SQS `backoff`), per consumer. */
  readonly backedOff: Record<string, number>;
  /** What was last logged for a message id: its error (`Name: message`) or its outcome. */
  lastLogged(messageId: string): string | undefined;
  /** Records what happened to a message outside the middleware (the whole invocation threw or timed out). */
  note(messageId: string, text: string): void;
  /** Lines logged so far. */
  lines(): number;
  close(): Promise<void>;
}

function describe(entry: BatchLogLine['records'][number]): string {
  if (entry.error !== undefined) return `${entry.error.name}: ${entry.error.message}`;
  if (entry.reason !== undefined) return `not started: ${entry.reason}`;
  // An acknowledged record that still came back lost its delete (crash before the ACK, or too late).
  return entry.outcome === 'completed' || entry.outcome === 'duplicate' ? `${entry.outcome}, acknowledged` : entry.outcome;
}

/** Opens `path` for appending and returns a collector writing to it. */
export function createLogCollector(path: string): LogCollector {
  const stream: WriteStream = createWriteStream(path, { flags: 'a' });
  const totals: OutcomeTotals = {};
  const backedOff: Record<string, number> = {};
  const last = new Map<string, string>();
  let count = 0;
  let closed = false;
  const logger: BatchLogger = (line) => {
    count += 1;
    // Handlers still running at shutdown (Ctrl-C) may log after close: keep the counts, drop the write.
    if (!closed) stream.write(`${JSON.stringify(line)}\n`);
    const perConsumer = (totals[line.consumer] ??= {});
    for (const [kind, n] of Object.entries(line.counts) as Array<[RecordOutcomeKind, number]>) {
      if (n > 0) perConsumer[kind] = (perConsumer[kind] ?? 0) + n;
    }
    if (line.backedOff !== undefined) backedOff[line.consumer] = (backedOff[line.consumer] ?? 0) + line.backedOff;
    for (const entry of line.records) last.set(entry.messageId, describe(entry));
  };
  return {
    logger,
    path,
    totals,
    backedOff,
    lastLogged: (messageId) => last.get(messageId),
    note: (messageId, text) => void last.set(messageId, text),
    lines: () => count,
    close: () => {
      closed = true;
      return new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    },
  };
}
