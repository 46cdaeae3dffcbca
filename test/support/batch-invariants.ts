/**
 * What must hold after every delivery of a batch, whatever the combination
 * (see test/unit/batch/interaction-matrix.test.ts), checked on the library's
 * own answers: the response, the batch log line, the handler's calls, the
 * effects and the store. Each check returns the problems it found, as
 * sentences (plain code rather than one `expect` per record: thousands of
 * deliveries are checked, and an `expect` costs more than the delivery).
 */
import type { SQSRecord } from 'aws-lambda';
import type { PlanRecord, Predicted } from './batch-matrix-model.js';
import { CONSUMER, isAcknowledged, type Delivery, type Rig } from './memory-batch.js';

/** One record as the log line reports it (the outcome kind, the not-started reason, the error's name). */
export function observed(d: Delivery): Predicted[] {
  return d.line.records.map(
    (r): Predicted => ({
      kind: r.outcome as Predicted['kind'],
      ...(r.reason === undefined ? {} : { reason: r.reason as NonNullable<Predicted['reason']> }),
      ...(r.error === undefined ? {} : { error: r.error.name }),
    }),
  );
}

export interface InvariantInput {
  readonly rig: Rig;
  readonly plan: readonly PlanRecord[];
  readonly records: readonly SQSRecord[];
  readonly delivery: Delivery;
  /** Effects applied before the test (a key seeded COMPLETED counts one). */
  readonly prior: ReadonlyMap<string, number>;
  readonly fifo: boolean;
  /** Keys a live claim of another owner holds during this delivery. */
  readonly heldElsewhere: ReadonlySet<string>;
}

const applied = (input: InvariantInput, key: string): number => (input.prior.get(key) ?? 0) + (input.rig.effects.get(key) ?? 0);

/** The response and the log line tell one story: a record is returned exactly when its logged outcome is not acknowledged. */
function responseMatchesLog({ records, delivery }: InvariantInput, problems: string[]): void {
  const ids = records.map((r) => r.messageId);
  const logged = delivery.line.records.map((r) => r.messageId);
  if (logged.join() !== ids.join()) problems.push(`log entries ${logged.join()} are not the records ${ids.join()}`);
  const notAcked = delivery.line.records.filter((r) => !isAcknowledged(r.outcome)).map((r) => r.messageId);
  if (delivery.failed.join() !== notAcked.join())
    problems.push(`batchItemFailures [${delivery.failed.join()}] are not the records logged unacknowledged [${notAcked.join()}]`);
  if (delivery.line.retried !== delivery.failed.length) problems.push(`the log line says ${delivery.line.retried} retried`);
  const counted = Object.values(delivery.line.counts).reduce((a, b) => a + b, 0);
  if (counted !== records.length) problems.push(`the log line counts ${counted} outcomes for ${records.length} records`);
}

/** A record leaves the queue only when its key's effect has been applied (by it, a copy, or an earlier delivery). */
async function acknowledgedOnlyIfApplied(input: InvariantInput, problems: string[]): Promise<void> {
  const { plan, delivery, rig } = input;
  const failed = new Set(delivery.failed);
  for (const p of plan) {
    if (failed.has(p.id)) continue;
    if (p.key === undefined) {
      problems.push(`bad record ${p.id} was acknowledged`);
      continue;
    }
    if (applied(input, p.key) < 1) problems.push(`${p.id} acknowledged but the effect of ${p.key} was never applied`);
    const stored = await rig.store.get(rig.store.recordId(CONSUMER, p.key));
    if (stored?.status !== 'COMPLETED') problems.push(`${p.id} acknowledged but ${p.key} is ${stored?.status ?? 'absent'} in the store`);
  }
}

function atMostOnce(input: InvariantInput, problems: string[]): void {
  for (const key of new Set(input.plan.flatMap((p) => (p.key === undefined ? [] : [p.key])))) {
    if (applied(input, key) > 1) problems.push(`effect of ${key} applied ${applied(input, key)} times`);
  }
}

function callsAreValid({ plan, delivery }: InvariantInput, problems: string[]): void {
  const bad = new Set(plan.filter((p) => p.key === undefined).map((p) => p.id));
  for (const id of delivery.calls) if (bad.has(id)) problems.push(`the handler ran bad record ${id}`);
  if (new Set(delivery.calls).size !== delivery.calls.length) problems.push(`the handler ran a record twice: ${delivery.calls.join()}`);
}

function badRecordsAlone({ plan, delivery }: InvariantInput, problems: string[]): void {
  const outcomes = new Map(delivery.line.records.map((r) => [r.messageId, r.outcome]));
  const failed = new Set(delivery.failed);
  for (const p of plan.filter((x) => x.key === undefined)) {
    if (outcomes.get(p.id) !== 'invalid' || !failed.has(p.id))
      problems.push(`bad record ${p.id} is ${outcomes.get(p.id)}, returned: ${failed.has(p.id)}`);
  }
}

/**
 * FIFO: once a record of a group comes back, nothing after it in the group
 * runs, and everything after it comes back too, except a copy already known
 * to be a duplicate (acknowledged wherever it stands: docs/sqs.md, "FIFO queues").
 */
function fifoOrder({ plan, delivery, fifo }: InvariantInput, problems: string[]): void {
  if (!fifo) return;
  const failed = new Set(delivery.failed);
  const outcome = new Map(delivery.line.records.map((r) => [r.messageId, r.outcome]));
  const callAt = new Map(delivery.calls.map((id, i) => [id, i]));
  for (const group of new Set(plan.map((p) => p.group))) {
    const members = plan.filter((p) => p.group === group);
    const ran = members.filter((p) => callAt.has(p.id)).map((p) => callAt.get(p.id) as number);
    if (ran.some((at, i) => i > 0 && at < (ran[i - 1] as number))) problems.push(`group ${group} ran out of order`);
    const cut = members.findIndex((p) => failed.has(p.id));
    if (cut === -1) continue;
    for (const p of members.slice(cut + 1)) {
      const behind = `group ${group}: ${p.id} behind ${members[cut]?.id}, which comes back,`;
      if (callAt.has(p.id)) problems.push(`${behind} ran`);
      if (!failed.has(p.id) && outcome.get(p.id) !== 'duplicate') problems.push(`${behind} was acknowledged as ${outcome.get(p.id)}`);
    }
  }
}

/** A key another live owner holds comes back every time, whatever the copy. */
function heldKeysReturned({ plan, delivery, heldElsewhere }: InvariantInput, problems: string[]): void {
  const failed = new Set(delivery.failed);
  for (const p of plan) {
    if (p.key !== undefined && heldElsewhere.has(p.key) && !failed.has(p.id))
      problems.push(`${p.id} of ${p.key}, held by another live owner, was acknowledged`);
  }
}

/** Every invariant; the problems found (none when all hold). */
export async function invariantProblems(input: InvariantInput): Promise<string[]> {
  const problems: string[] = [];
  responseMatchesLog(input, problems);
  await acknowledgedOnlyIfApplied(input, problems);
  atMostOnce(input, problems);
  callsAreValid(input, problems);
  badRecordsAlone(input, problems);
  fifoOrder(input, problems);
  heldKeysReturned(input, problems);
  return problems;
}

/** A record that comes back at every receive for no lasting reason (see {@link livenessProblems}). */
export interface LivenessProblem {
  readonly message: string;
}

/**
 * Liveness, for a delivery with a healthy handler after the retry: a record
 * still comes back only for a reason that outlives redelivery: it is invalid
 * (a bad body, a changed payload), another live owner holds its key, (FIFO)
 * an earlier record of its own group comes back, or it found a copy of its
 * key in another group of this batch in progress that then completed (it is
 * a duplicate next time). Anything else comes back at every receive, until
 * the redrive policy dead-letters it without ever running it.
 */
export function livenessProblems({ plan, delivery, fifo, heldElsewhere }: InvariantInput): LivenessProblem[] {
  const failed = new Set(delivery.failed);
  const outcome = new Map(delivery.line.records.map((r) => [r.messageId, r.outcome]));
  const copies = (p: PlanRecord) => plan.filter((x) => x.key === p.key && x.id !== p.id && x.group !== p.group);
  const blockedGroups = new Set<string | undefined>();
  const problems: LivenessProblem[] = [];
  for (const p of plan) {
    if (!failed.has(p.id)) continue;
    const o = outcome.get(p.id);
    const lostToCompletedCopy = o === 'in-progress' && copies(p).some((x) => outcome.get(x.id) === 'completed');
    const excused =
      o === 'invalid' || (p.key !== undefined && heldElsewhere.has(p.key)) || (fifo && blockedGroups.has(p.group)) || lostToCompletedCopy;
    if (fifo) blockedGroups.add(p.group);
    if (excused) continue;
    problems.push({ message: `${p.id} (${o}) came back with nothing before it in its group and its key free` });
  }
  return problems;
}
