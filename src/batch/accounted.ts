/**
 * The lifecycle's guard around a source's after-settle step (SQS: the DLQ, backoff): whatever the step returns, no
 * record leaves the queue that no step accounted for. Pure: no I/O.
 */
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import type { LineNotes } from '../observe/log.js';

/** What an after-settle step returned, as the guard reads it. */
interface StepResult {
  readonly outcomes: readonly RecordOutcome[];
  readonly notes?: LineNotes;
}

const records = (n: number): string => (n === 1 ? '1 record' : `${n} records`);

/**
 * The outcomes the response is built from: the step's, matched by message id to the ones it was given. A record it
 * returned nothing for keeps the outcome it had; a record that was coming back leaves the queue only as
 * `dead-lettered` (its copy is safe in the DLQ), any other acknowledged outcome for it is ignored; an outcome for a
 * record it was not given is ignored. Each departure is a warning in the line: nothing is acknowledged unaccounted.
 */
export function accountedOutcomes(given: readonly RecordOutcome[], result: StepResult): { outcomes: RecordOutcome[]; notes: LineNotes } {
  const returned = new Map<string, RecordOutcome>();
  for (const outcome of result.outcomes) if (!returned.has(outcome.messageId)) returned.set(outcome.messageId, outcome);
  let missing = 0;
  let refused = 0;
  const outcomes = given.map((before) => {
    const after = returned.get(before.messageId);
    returned.delete(before.messageId);
    if (after === undefined) missing += 1;
    else if (!acknowledged(before) && acknowledged(after) && after.kind !== 'dead-lettered') refused += 1;
    else return after;
    return before;
  });
  const warnings = [
    ...(missing === 0 ? [] : [`the after-settle step returned no outcome for ${records(missing)}; they kept the outcome they had`]),
    ...(refused === 0 ? [] : [`the after-settle step acknowledged ${records(refused)} it had not sent anywhere; they came back`]),
    ...(returned.size === 0 ? [] : [`the after-settle step answered ${records(returned.size)} it was not given; ignored`]),
  ];
  const notes = result.notes ?? {};
  if (warnings.length === 0) return { outcomes, notes };
  return { outcomes, notes: { ...notes, warn: true, warnings: [...(notes.warnings ?? []), ...warnings] } };
}
