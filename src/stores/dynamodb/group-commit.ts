/**
 * Group commit's I/O rounds: several records' commits in as few `TransactWriteItems` as the limits allow, each record
 * atomic on its own. A cancelled group is read per record from its reasons: a record whose own reasons name a failure
 * is decided as its single commit would be; one cancelled only because of the others goes again in the next round.
 */
import { planGroups } from './group-plan.js';
import { cancellationReasons, type RawCancellationReason } from './cancellation.js';
import type { CommitFootprint } from './commit-limits.js';
import { answerOf, type CommitInput, type CommitResult, type GroupCommitAnswer, type TransactItem } from '../../engine/store.js';

/** A record's commit, checked and ready to send. */
export interface PreparedCommit {
  /** Position in the caller's inputs. */
  readonly index: number;
  readonly input: CommitInput;
  readonly id: string;
  readonly now: number;
  /** The idempotency record's Put (action 0 of the record's slice). */
  readonly put: TransactItem;
  readonly footprint: CommitFootprint;
  /** Sent in a transaction of its own from the first round (the probe found it likely to be refused). */
  readonly alone?: boolean;
}

/** What the rounds need from the store. */
export interface GroupCommitIO {
  /** Sends one `TransactWriteItems`. */
  send(items: TransactItem[]): Promise<void>;
  /** A record alone, exactly as `commit` sends and reads it (throws what `commit` throws). */
  single(commit: PreparedCommit): Promise<CommitResult>;
  /** A record's own slice of a group's cancellation reasons, read as `commit` reads a cancellation (throws the same). */
  refused(err: unknown, reasons: readonly RawCancellationReason[], commit: PreparedCommit): Promise<CommitResult>;
  /** The record of a commit that went through. */
  committed(commit: PreparedCommit): CommitResult;
}

const settle = (run: () => Promise<CommitResult>): Promise<GroupCommitAnswer> => answerOf(run);

const isNone = (r: RawCancellationReason) => r.Code === undefined || r.Code === 'None';

/**
 * Commits the records in rounds until each has its answer. Every round sends
 * at least one group, and every group either decides a record or makes its
 * records go alone next time (a record alone is always decided), so the
 * rounds end.
 */
export async function commitInRounds(commits: readonly PreparedCommit[], io: GroupCommitIO): Promise<Map<number, GroupCommitAnswer>> {
  const answers = new Map<number, GroupCommitAnswer>();
  const solo = new Set<number>(commits.filter((c) => c.alone === true).map((c) => c.index));
  let pending = [...commits];
  while (pending.length > 0) {
    const round = pending;
    const plan = planGroups(round.map((c) => ({ ...c.footprint, solo: solo.has(c.index) })));
    const again = plan.deferred.map((i) => round[i] as PreparedCommit);
    const retried = await Promise.all(
      plan.groups.map((members) =>
        sendGroup(
          members.map((i) => round[i] as PreparedCommit),
          io,
          answers,
          solo,
        ),
      ),
    );
    // Keep the callers' order: it is the order records finished, which the next round's packing follows.
    pending = [...again, ...retried.flat()].sort((a, b) => a.index - b.index);
  }
  return answers;
}

/** Sends one group; returns the records to send again. */
async function sendGroup(
  group: readonly PreparedCommit[],
  io: GroupCommitIO,
  answers: Map<number, GroupCommitAnswer>,
  solo: Set<number>,
): Promise<PreparedCommit[]> {
  const [only] = group;
  if (group.length === 1 && only !== undefined) {
    answers.set(only.index, await settle(() => io.single(only)));
    return [];
  }
  try {
    await io.send(group.flatMap((c) => [c.put, ...c.input.actions]));
  } catch (err) {
    return readCancellation(err, group, io, answers, solo);
  }
  for (const c of group) answers.set(c.index, { kind: 'result', result: io.committed(c) });
  return [];
}

async function readCancellation(
  err: unknown,
  group: readonly PreparedCommit[],
  io: GroupCommitIO,
  answers: Map<number, GroupCommitAnswer>,
  solo: Set<number>,
): Promise<PreparedCommit[]> {
  const reasons = cancellationReasons(err);
  const total = group.reduce((n, c) => n + c.footprint.actions, 0);
  const again: PreparedCommit[] = [];
  // Reasons that cannot be split per record (another error, a short list): each record goes alone, where its own answer is clear.
  if (reasons !== undefined && reasons.length === total) {
    let offset = 0;
    const refused: Array<Promise<void>> = [];
    for (const c of group) {
      const own = reasons.slice(offset, offset + c.footprint.actions);
      offset += c.footprint.actions;
      if (own.every(isNone)) again.push(c);
      // Side by side: a refused record may be sent again alone (a free item under the full rule), and a group never holds one item twice.
      else refused.push(settle(() => io.refused(err, own, c)).then((answer) => void answers.set(c.index, answer)));
    }
    await Promise.all(refused);
    if (again.length < group.length) return again;
  }
  for (const c of group) solo.add(c.index);
  return [...group];
}
