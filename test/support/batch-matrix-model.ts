/**
 * A small model of one SQS batch through `sqsIdempotency` + `eachRecord`
 * (claim strategy), written from the README, docs/sqs.md and DESIGN.md, not
 * from the implementation; it imports nothing from src/. The interaction
 * matrix (test/unit/batch/) and its property test compare the library with it.
 *
 * What the store holds for a key, as a claim sees it: COMPLETED within its
 * retention, a live IN_PROGRESS claim, or free (nothing, past retention, a
 * lease that passed, FAILED). Payloads are versions `v` of one body.
 *
 * - No body that parses, or no key: `invalid`, returned alone.
 * - The first copy of a key in the batch (in any FIFO group) is claimed. Found
 *   COMPLETED: `duplicate` (acknowledged), or `invalid` when the payload
 *   differs. Found a live claim: `in-progress` (returned), or `invalid` when
 *   the payload differs. Free: claimed.
 * - A later copy is not claimed. Its first copy found a stored record E:
 *   judged against E as if alone. Its first copy completed: `duplicate`, or
 *   `invalid` with another payload. Otherwise `not-started` (same-key-failed).
 * - FIFO: once a record of a group comes back, the records after it are not
 *   started (claims released); a later copy already known to be a duplicate
 *   is acknowledged wherever it stands (docs/sqs.md, "FIFO queues").
 * - FIFO, a key in several groups: a first copy held back unrun (its claim
 *   released) stands in no other group's way. The lanes run as in batch order
 *   (groups sharing a key do, each stopping at its own returned record); the
 *   first copy reached in another group claims the key afresh (with its own
 *   payload) and runs, and the copies not yet decided follow it.
 * - A claimed record runs: throws → `failed` (claim released) else `completed`.
 */

export type Stored = { readonly status: 'COMPLETED' | 'IN_PROGRESS'; readonly v: number } | undefined;

export type Bad = 'nojson' | 'nokey';

/** One record of a planned batch. */
export interface PlanRecord {
  readonly id: string;
  /** The business key; undefined for a bad record. */
  readonly key: string | undefined;
  readonly v: number;
  readonly bad?: Bad;
  /** FIFO message group; undefined on a standard queue. */
  readonly group: string | undefined;
  /** The handler throws for this record (in this delivery). */
  readonly throws: boolean;
}

export type Kind = 'completed' | 'duplicate' | 'in-progress' | 'failed' | 'invalid' | 'not-started';

export interface Predicted {
  readonly kind: Kind;
  readonly reason?: 'group-failed' | 'same-key-failed';
  readonly error?: string;
}

export interface ModelRun {
  /** One per record, in batch order. */
  readonly outcomes: readonly Predicted[];
  /** Message ids the handler is called for. */
  readonly ran: ReadonlySet<string>;
  /** The store after the batch. */
  readonly after: ReadonlyMap<string, Stored>;
}

interface Out extends Predicted {
  /** The stored record a first copy found (its later copies are judged against it). */
  readonly found?: NonNullable<Stored>;
  /** The payload a completed first copy recorded. */
  readonly v?: number;
}

export const acknowledgedKinds: ReadonlySet<string> = new Set(['completed', 'duplicate', 'dead-lettered']);
const ack = (o: Out | undefined): boolean => o !== undefined && acknowledgedKinds.has(o.kind);
const mismatch = { kind: 'invalid', error: 'PayloadMismatchError' } as const;

function judge(v: number, found: NonNullable<Stored>): Out {
  if (v !== found.v) return { ...mismatch, found };
  return { kind: found.status === 'COMPLETED' ? 'duplicate' : 'in-progress', found };
}

function follow(v: number, leader: Out): Out {
  if (leader.found !== undefined) return judge(v, leader.found);
  if (leader.kind === 'completed') return v === leader.v ? { kind: 'duplicate' } : mismatch;
  return { kind: 'not-started', reason: 'same-key-failed' };
}

/** Runs the model over one delivery of `records` against `stored`. */
export function runModel(records: readonly PlanRecord[], stored: ReadonlyMap<string, Stored>): ModelRun {
  const state = new Map(stored);
  const out: (Out | undefined)[] = records.map(() => undefined);
  const leaderOf = new Map<number, number>();
  const owned = new Set<number>();
  const ran = new Set<string>();
  const at = (i: number): PlanRecord => records[i] as PlanRecord;
  const release = (i: number) => {
    owned.delete(i);
    state.delete(at(i).key as string);
  };

  // Before the handler: bad records, and one claim per first copy, in batch order.
  const leaders = new Map<string, number>();
  records.forEach((r, i) => {
    if (r.key === undefined) {
      out[i] = { kind: 'invalid', error: r.bad === 'nokey' ? 'MissingKeyError' : 'BodyParseError' };
      return;
    }
    const leader = leaders.get(r.key);
    if (leader !== undefined) {
      leaderOf.set(i, leader);
      return;
    }
    leaders.set(r.key, i);
    const found = state.get(r.key);
    if (found !== undefined) out[i] = judge(r.v, found);
    else {
      owned.add(i);
      state.set(r.key, { status: 'IN_PROGRESS', v: r.v });
    }
  });
  const releasedUnrun = (o: Out | undefined) => o?.kind === 'not-started' && o.reason === 'group-failed';
  // A copy in another group than its first copy, held back unrun, is left for its lane: it may take the key over.
  const mayTakeOver = (i: number, leader: number) => releasedUnrun(out[leader]) && at(i).group !== at(leader).group;
  const settleFollowers = (final = false) => {
    for (const [i, leader] of leaderOf) {
      const first = out[leader];
      if (out[i] === undefined && first !== undefined && (final || !mayTakeOver(i, leader))) out[i] = follow(at(i).v, first);
    }
  };
  settleFollowers();
  // FIFO: a group stops at its first record already known to come back.
  const blocked = new Set<string>();
  const heldCopies = new Set<number>();
  records.forEach((r, i) => {
    if (r.group === undefined) return;
    if (out[i] !== undefined && !ack(out[i])) blocked.add(r.group);
    else if (owned.has(i) && blocked.has(r.group)) {
      release(i);
      out[i] = { kind: 'not-started', reason: 'group-failed' };
    } else if (out[i] === undefined && blocked.has(r.group)) heldCopies.add(i);
  });
  settleFollowers();

  // The handler: in batch order (as the lanes run), each lane stopping at its first record that comes back.
  const run = (i: number) => {
    const r = at(i);
    ran.add(r.id);
    if (r.throws) {
      release(i);
      out[i] = { kind: 'failed', error: 'Error' };
    } else {
      state.set(r.key as string, { status: 'COMPLETED', v: r.v });
      out[i] = { kind: 'completed', v: r.v };
    }
  };
  const takeOver = (i: number, released: number) => {
    for (const [j, leader] of leaderOf) if (j !== i && leader === released && out[j] === undefined) leaderOf.set(j, i);
    leaderOf.delete(i);
    const r = at(i);
    const found = state.get(r.key as string);
    if (found !== undefined) out[i] = judge(r.v, found);
    else {
      owned.add(i);
      state.set(r.key as string, { status: 'IN_PROGRESS', v: r.v });
      run(i);
    }
  };
  const stopped = new Set<string>();
  records.forEach((r, i) => {
    if (!owned.has(i) && !(leaderOf.has(i) && out[i] === undefined)) return;
    const lane = r.group ?? `\u0000${r.key}`;
    if (stopped.has(lane) || heldCopies.has(i)) {
      stopped.add(lane);
      if (owned.has(i)) {
        release(i);
        out[i] = { kind: 'not-started', reason: 'group-failed' };
      }
      return; // a later copy is decided from its first copy below
    }
    const leader = leaderOf.get(i);
    if (owned.has(i)) run(i);
    else if (leader !== undefined && mayTakeOver(i, leader)) takeOver(i, leader);
    else out[i] = follow(r.v, out[leader as number] as Out);
    if (!ack(out[i])) stopped.add(lane);
  });
  settleFollowers(true);

  const outcomes = out.map((o, i): Predicted => {
    if (o === undefined) throw new Error(`the model left record ${i} undecided`);
    return { kind: o.kind, ...(o.reason === undefined ? {} : { reason: o.reason }), ...(o.error === undefined ? {} : { error: o.error }) };
  });
  return { outcomes, ran, after: state };
}
