/**
 * Streams resume a shard from the lowest record a response names, so the
 * response must name a shard's first failure and every record after it: an
 * acknowledgement behind a failure would claim a record done that the retry
 * delivers again (and, for a handler answering for itself, one never run).
 */
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import { heldBack } from './schedule.js';
import type { BatchSource } from '../engine/source.js';

/**
 * Streams: a record acknowledged behind one that comes back in its shard (a
 * copy of a key done earlier, found before the handler or decided from its
 * first copy) comes back too; the redelivery acknowledges the copy again.
 * `records[i]` is `outcomes[i]`'s. The stream sources' `behindFailures`.
 */
export function behindFailures<TRecord>(
  source: BatchSource<unknown, TRecord, unknown>,
  records: readonly TRecord[],
  outcomes: readonly RecordOutcome[],
): readonly RecordOutcome[] {
  const pairs = outcomes.map((outcome, i) => ({ outcome, record: records[i] as TRecord }));
  const held = heldBack(
    pairs,
    (p) => source.read(p.record).lane,
    (p) => (acknowledged(p.outcome) ? 'waits' : 'blocks'),
  );
  return outcomes.map((o, i): RecordOutcome => {
    if (held[i] !== true) return o;
    return { kind: 'not-started', messageId: o.messageId, ...(o.key === undefined ? {} : { key: o.key }), reason: 'group-failed' };
  });
}
