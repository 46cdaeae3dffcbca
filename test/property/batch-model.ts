/**
 * The reference model for test/property/batch-model.test.ts: what every record
 * of one SQS batch through `sqsIdempotency` + `eachRecord` must end as, in
 * plain TypeScript with no store and no library code, written from the README
 * and issue 10's rules rather than from the implementation.
 *
 * Lanes: a FIFO message group; on a standard queue the copies of one key
 * (everything else is independent). S(k) is what the store holds for key k
 * before the batch, as far as a claim or a commit can tell: free, done or held.
 *
 * - No body that parses / no key: `invalid`; it blocks its FIFO group.
 * - The first copy of k (the leader; transaction strategy: in its lane), payload p:
 *   - claim strategy, decided at the claim, before anything runs: S done or
 *     held with hash h: p differs → `invalid` (blocks); else `duplicate`
 *     (acknowledged wherever it stands) or `in-progress` (blocks). S free: it
 *     is claimed, once for the whole batch (a copy in another FIFO group is a
 *     follower too). A claimed record behind a blocking one in its group is
 *     released: `not-started` (group-failed). The others run in batch order
 *     (as the lanes do; groups sharing a key run as one lane), each group
 *     stopping at its first record that comes back: the handler throws →
 *     `failed` (blocks) else `completed`. A leader held back unrun stands in
 *     no other group's way: the first of its followers reached in another
 *     group, not held back itself, claims k afresh (judged against S as then,
 *     with its own payload) and runs, and the undecided copies follow it.
 *   - transaction strategy, decided at the commit, after the handler: a record
 *     behind a blocking one is `not-started`; else the handler runs; throws →
 *     `failed`; else the commit meets S(k) as it is then: done → `duplicate`
 *     or (payload differs) `invalid`; a live claim → `failed`
 *     (IdempotencyInProgressError); free → `completed`.
 * - A later copy (follower), payload q, never runs; it is decided from its
 *   leader: the leader found a stored record E → judged against E (q differs:
 *   `invalid`; E done: `duplicate`; E held: `in-progress`); the leader
 *   completed with p → `duplicate`, or `invalid` when q differs from p;
 *   otherwise → `not-started` (same-key-failed). It is decided before the
 *   handler when its leader is (claim strategy), else in its lane when the
 *   lane reaches it; one that comes back there stops its lane. One skipped
 *   behind a failure is decided from its leader all the same (a duplicate of a
 *   done key is acknowledged wherever it stands).
 * - `deadLetter`, last: see {@link deadLetter}.
 */

export type Strategy = 'claim' | 'transaction';

/** One planned record: a key and a body variant, or a bad body. */
export interface PlannedRecord {
  readonly key: string;
  readonly v: number;
  /** FIFO message group; `undefined` on a standard queue. */
  readonly group: string | undefined;
  /** The handler throws for this record. */
  readonly fails: boolean;
  /** What it throws is a `PermanentError` (else a plain `Error`). */
  readonly permanent?: boolean;
  /** `deadLetter` on: SQS refuses this record's DLQ entry. */
  readonly dlqRefuses?: boolean;
  readonly bad?: 'nojson' | 'nokey';
}

/** A record in the store that a claim or commit cannot take: done or held by a live claim; `undefined`: free. */
export type Live = { readonly status: 'COMPLETED' | 'IN_PROGRESS'; readonly hash: number | undefined } | undefined;

/** How a record must end, as the batch log line reports it. */
export interface Expected {
  readonly outcome: string;
  readonly reason?: string;
  readonly error?: string;
}

export interface ModelInput {
  readonly strategy: Strategy;
  readonly records: readonly PlannedRecord[];
  readonly stored: ReadonlyMap<string, Live>;
  readonly payloadCheck: boolean;
  /** Claim strategy, a free key led in several FIFO groups: the index of the leader whose claim wins. */
  readonly winners: ReadonlyMap<string, number>;
  /** `deadLetter` on (a DLQ that takes every entry but those `dlqRefuses` names). */
  readonly dlq?: boolean;
}

export interface ModelResult {
  readonly outcomes: readonly Expected[];
  /** Indices of the records the handler runs. */
  readonly ran: ReadonlySet<number>;
  /** Key → index of the record whose effect is applied (at most one per key). */
  readonly completedBy: ReadonlyMap<string, number>;
}

interface Out extends Expected {
  /** The stored record a leader found (duplicate, in progress, payload mismatch). */
  readonly found?: NonNullable<Live>;
}

const ack = (o: Out | undefined): boolean => o?.outcome === 'completed' || o?.outcome === 'duplicate';
const differs = (a: number | undefined, b: number | undefined): boolean => a !== undefined && b !== undefined && a !== b;
const mismatch: Out = { outcome: 'invalid', error: 'PayloadMismatchError' };

/** A record judged against a stored record it cannot take. */
function judge(hash: number | undefined, found: NonNullable<Live>): Out {
  if (differs(hash, found.hash)) return { ...mismatch, found };
  return { outcome: found.status === 'COMPLETED' ? 'duplicate' : 'in-progress', found };
}

/** A follower with payload hash `hash`, given its leader's outcome and payload hash. */
function follow(leader: Out | undefined, leaderHash: number | undefined, hash: number | undefined): Out {
  if (leader?.found !== undefined) return judge(hash, leader.found);
  if (leader?.outcome === 'completed') return differs(hash, leaderHash) ? mismatch : { outcome: 'duplicate' };
  return { outcome: 'not-started', reason: 'same-key-failed' };
}

/** Leader of each follower (by index), and the leaders of each key in batch order. */
function copies(
  records: readonly PlannedRecord[],
  strategy: Strategy,
): { leaderOf: Map<number, number>; leadersOf: Map<string, number[]> } {
  const leaderOf = new Map<number, number>();
  const leadersOf = new Map<string, number[]>();
  const byLane = new Map<string, number>();
  records.forEach((r, i) => {
    if (r.bad !== undefined) return;
    const lane = strategy === 'claim' ? r.key : `${r.key}\u0000${r.group ?? ''}`;
    const leader = byLane.get(lane);
    if (leader !== undefined) {
      leaderOf.set(i, leader);
      return;
    }
    byLane.set(lane, i);
    leadersOf.set(r.key, [...(leadersOf.get(r.key) ?? []), i]);
  });
  return { leaderOf, leadersOf };
}

class Batch {
  readonly out: (Out | undefined)[];
  readonly owned = new Set<number>();
  /** FIFO: followers behind a record of their group already known, before the handler, to come back. */
  readonly heldCopies = new Set<number>();
  readonly ran = new Set<number>();
  readonly completedBy = new Map<string, number>();
  readonly current: Map<string, Live>;
  readonly leaderOf: Map<number, number>;
  readonly leadersOf: Map<string, number[]>;

  constructor(readonly input: ModelInput) {
    this.out = input.records.map(() => undefined);
    this.current = new Map(input.stored);
    ({ leaderOf: this.leaderOf, leadersOf: this.leadersOf } = copies(input.records, input.strategy));
  }

  hash(i: number): number | undefined {
    return this.input.payloadCheck ? this.input.records[i]?.v : undefined;
  }

  rec(i: number): PlannedRecord {
    const r = this.input.records[i];
    if (r === undefined) throw new Error(`no record ${i}`);
    return r;
  }

  /** Before the handler: bad records, and (claim strategy) each leader's claim. */
  admit(): void {
    this.input.records.forEach((r, i) => {
      if (r.bad !== undefined) this.out[i] = { outcome: 'invalid', error: r.bad === 'nojson' ? 'BodyParseError' : 'MissingKeyError' };
      else if (!this.leaderOf.has(i)) this.claim(i);
    });
  }

  claim(i: number): void {
    const { key } = this.rec(i);
    if (this.input.strategy === 'transaction') {
      this.owned.add(i); // decided at the commit
      return;
    }
    const stored = this.current.get(key);
    const winner = this.input.winners.get(key) ?? this.leadersOf.get(key)?.[0];
    if (stored !== undefined) this.out[i] = judge(this.hash(i), stored);
    else if (winner === i) this.owned.add(i);
    else this.out[i] = judge(this.hash(i), { status: 'IN_PROGRESS', hash: winner === undefined ? undefined : this.hash(winner) });
  }

  /** Follower `i`, decided from its leader's outcome so far. */
  follower(i: number): Out {
    const leader = this.leaderOf.get(i);
    if (leader === undefined) throw new Error(`record ${i} is not a follower`);
    return follow(this.out[leader], this.hash(leader), this.hash(i));
  }

  /** A follower in another group than its leader, which was held back unrun: it may take the key over. */
  mayTakeOver(i: number, leader: number): boolean {
    const o = this.out[leader];
    return o?.outcome === 'not-started' && o.reason === 'group-failed' && this.rec(i).group !== this.rec(leader).group;
  }

  /** Followers whose leader is decided (`final`: also those that may still take their key over). */
  settleFollowers(final = false): void {
    for (const [i, leader] of this.leaderOf) {
      if (this.out[i] === undefined && this.out[leader] !== undefined && (final || !this.mayTakeOver(i, leader))) {
        this.out[i] = this.follower(i);
      }
    }
  }

  /** FIFO, before the handler: owned records behind a settled record that comes back are released. */
  holdBack(): void {
    const blocked = new Set<string>();
    this.input.records.forEach((r, i) => {
      if (r.group === undefined) return;
      const o = this.out[i];
      if (o !== undefined && !ack(o)) blocked.add(r.group);
      if (this.owned.has(i) && blocked.has(r.group)) {
        this.owned.delete(i);
        this.out[i] = { outcome: 'not-started', reason: 'group-failed' };
      } else if (o === undefined && blocked.has(r.group)) this.heldCopies.add(i);
    });
  }

  /** Claim strategy: the lanes as in batch order, each group stopping at its first record that comes back. */
  runInOrder(): void {
    const stopped = new Set<string>();
    this.input.records.forEach((r, i) => {
      if (!this.owned.has(i) && !(this.leaderOf.has(i) && this.out[i] === undefined)) return;
      const lane = r.group ?? `\u0000${r.key}`;
      if (stopped.has(lane) || this.heldCopies.has(i)) {
        stopped.add(lane);
        if (this.owned.has(i)) this.out[i] = { outcome: 'not-started', reason: 'group-failed' };
        return;
      }
      const leader = this.leaderOf.get(i);
      if (this.owned.has(i)) this.out[i] = this.execute(i);
      else if (leader !== undefined && this.mayTakeOver(i, leader)) this.takeOver(i, leader);
      else this.out[i] = this.follower(i);
      if (!ack(this.out[i])) stopped.add(lane);
    });
  }

  /** Follower `i` claims the key its leader released unrun; the undecided copies follow it. */
  takeOver(i: number, released: number): void {
    for (const [j, leader] of this.leaderOf) if (j !== i && leader === released && this.out[j] === undefined) this.leaderOf.set(j, i);
    this.leaderOf.delete(i);
    const stored = this.current.get(this.rec(i).key);
    this.out[i] = stored === undefined ? this.execute(i) : judge(this.hash(i), stored);
  }

  /** The lanes `eachRecord` runs, in order of their first record. */
  lanes(): number[][] {
    const lanes = new Map<string, number[]>();
    this.input.records.forEach((r, i) => {
      if (!this.owned.has(i) && !(this.leaderOf.has(i) && this.out[i] === undefined)) return;
      const name = r.group ?? `\u0000${r.key}`;
      lanes.set(name, [...(lanes.get(name) ?? []), i]);
    });
    return [...lanes.values()];
  }

  runLane(lane: readonly number[]): void {
    let stopped = false;
    for (const i of lane) {
      if (stopped) {
        if (this.owned.has(i)) this.out[i] = { outcome: 'not-started', reason: 'group-failed' };
        continue;
      }
      const o = this.owned.has(i) ? this.execute(i) : this.follower(i);
      this.out[i] = o;
      stopped = !ack(o);
    }
  }

  execute(i: number): Out {
    this.ran.add(i);
    if (this.rec(i).fails) return { outcome: 'failed', error: this.rec(i).permanent === true ? 'PermanentError' : 'Error' };
    const { key } = this.rec(i);
    const stored = this.input.strategy === 'transaction' ? this.current.get(key) : undefined;
    if (stored?.status === 'IN_PROGRESS') return { outcome: 'failed', error: 'IdempotencyInProgressError' };
    if (stored !== undefined) return judge(this.hash(i), stored);
    this.current.set(key, { status: 'COMPLETED', hash: this.hash(i) });
    this.completedBy.set(key, i);
    return { outcome: 'completed' };
  }
}

/** Runs the model over one batch. */
export function model(input: ModelInput): ModelResult {
  const b = new Batch(input);
  b.admit();
  b.settleFollowers();
  b.holdBack();
  b.settleFollowers();
  if (input.strategy === 'claim') b.runInOrder();
  else for (const lane of b.lanes()) b.runLane(lane);
  b.settleFollowers(true);
  const outcomes = deadLetter(input, b.out).map((o): Expected => {
    if (o === undefined) throw new Error('the model left a record undecided');
    const { outcome, reason, error } = o;
    return { outcome, ...(reason === undefined ? {} : { reason }), ...(error === undefined ? {} : { error }) };
  });
  return { outcomes, ran: b.ran, completedBy: b.completedBy };
}

/**
 * `deadLetter`, after every outcome is final: an invalid record or a
 * `PermanentError` goes to the DLQ and is acknowledged (`dead-lettered`)
 * unless SQS refuses its entry; in a FIFO group only the first record that
 * comes back may go (nothing leaves its group before an earlier record).
 */
function deadLetter(input: ModelInput, out: readonly (Out | undefined)[]): (Out | undefined)[] {
  if (input.dlq !== true) return [...out];
  const blocked = new Set<string>();
  return out.map((o, i) => {
    const r = input.records[i];
    const lane = r?.group;
    const held = lane !== undefined && blocked.has(lane);
    if (lane !== undefined && !ack(o)) blocked.add(lane);
    const permanent = o?.outcome === 'invalid' || (o?.outcome === 'failed' && o.error === 'PermanentError');
    return o === undefined || held || !permanent || r?.dlqRefuses === true ? o : { ...o, outcome: 'dead-lettered' };
  });
}

/**
 * Every way DynamoDB may pick the winning claim for keys led in several FIFO
 * groups (claim strategy). Since a key is claimed once per batch (by its first
 * copy, whatever its group) there is one: kept for a store that claims otherwise.
 */
export function winnerChoices(
  strategy: Strategy,
  records: readonly PlannedRecord[],
  stored: ReadonlyMap<string, Live>,
): Map<string, number>[] {
  let choices: Map<string, number>[] = [new Map()];
  if (strategy !== 'claim') return choices;
  for (const [key, leaders] of copies(records, strategy).leadersOf) {
    if (leaders.length < 2 || stored.get(key) !== undefined) continue;
    choices = choices.flatMap((c) => leaders.map((i) => new Map([...c, [key, i]])));
  }
  return choices;
}

/** Whether some key is led in two FIFO groups (then the transaction strategy's commits race across lanes). */
export function keyInTwoGroups(records: readonly PlannedRecord[]): boolean {
  return [...copies(records, 'transaction').leadersOf.values()].some((leaders) => leaders.length > 1);
}
