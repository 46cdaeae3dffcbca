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
 * - The first copy of a key in its lane (a FIFO group; on a standard queue the
 *   key itself) is claimed. Found COMPLETED: `duplicate` (acknowledged), or
 *   `invalid` when the payload differs. Found a live claim: `in-progress`
 *   (returned), or `invalid` when the payload differs. Free: claimed. A key
 *   led in two FIFO groups: the first claim in batch order wins (the memory
 *   store answers claims in the order they are sent), the other finds it live.
 * - A later copy (same lane) is never claimed nor run. Its first copy found a
 *   stored record E: judged against E as if alone. Its first copy completed:
 *   `duplicate`, or `invalid` with another payload. Otherwise `not-started`
 *   (same-key-failed).
 * - FIFO: once a record of a group comes back, the records after it are not
 *   started (claims released); a later copy already known to be a duplicate
 *   is acknowledged wherever it stands (docs/sqs.md, "FIFO queues").
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
    const lane = `${r.key}\u0000${r.group ?? ''}`;
    const leader = leaders.get(lane);
    if (leader !== undefined) {
      leaderOf.set(i, leader);
      return;
    }
    leaders.set(lane, i);
    const found = state.get(r.key);
    if (found !== undefined) out[i] = judge(r.v, found);
    else {
      owned.add(i);
      state.set(r.key, { status: 'IN_PROGRESS', v: r.v });
    }
  });
  const settleFollowers = () => {
    for (const [i, leader] of leaderOf) {
      const first = out[leader];
      if (out[i] === undefined && first !== undefined) out[i] = follow(at(i).v, first);
    }
  };
  settleFollowers();
  // FIFO: a group stops at its first record already known to come back.
  const blocked = new Set<string>();
  records.forEach((r, i) => {
    if (r.group === undefined) return;
    if (out[i] !== undefined && !ack(out[i])) blocked.add(r.group);
    else if (owned.has(i) && blocked.has(r.group)) {
      release(i);
      out[i] = { kind: 'not-started', reason: 'group-failed' };
    }
  });
  settleFollowers();

  // The handler: lanes in order; a lane stops at the first record that comes back.
  const lanes = new Map<string, number[]>();
  records.forEach((r, i) => {
    if (!owned.has(i) && !(leaderOf.has(i) && out[i] === undefined)) return;
    const name = r.group ?? `\u0000${r.key}`;
    lanes.set(name, [...(lanes.get(name) ?? []), i]);
  });
  for (const lane of lanes.values()) {
    let stopped = false;
    for (const i of lane) {
      const r = at(i);
      if (stopped) {
        if (owned.has(i)) {
          release(i);
          out[i] = { kind: 'not-started', reason: 'group-failed' };
        }
        continue; // a later copy is decided from its first copy below
      }
      if (owned.has(i)) {
        ran.add(r.id);
        if (r.throws) {
          release(i);
          out[i] = { kind: 'failed', error: 'Error' };
        } else {
          state.set(r.key as string, { status: 'COMPLETED', v: r.v });
          out[i] = { kind: 'completed', v: r.v };
        }
      } else {
        out[i] = follow(r.v, out[leaderOf.get(i) as number] as Out);
      }
      stopped = !ack(out[i]);
    }
  }
  settleFollowers();

  const outcomes = out.map((o, i): Predicted => {
    if (o === undefined) throw new Error(`the model left record ${i} undecided`);
    return { kind: o.kind, ...(o.reason === undefined ? {} : { reason: o.reason }), ...(o.error === undefined ? {} : { error: o.error }) };
  });
  return { outcomes, ran, after: state };
}
