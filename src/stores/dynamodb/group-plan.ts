/**
 * Group commit's packing rule, as a pure function: which records' transactions
 * are sent together in one `TransactWriteItems`. DynamoDB allows one action
 * per item in a transaction, at most 100 actions and 4 MB; a record's actions
 * always stay together, so a record is the unit that is packed.
 */
import { MAX_TRANSACTION_ACTIONS, MAX_TRANSACTION_BYTES } from '../../engine/size.js';

/** One record's transaction, as the packing sees it. */
export interface GroupCandidate {
  /** Canonical identities of the items its actions touch (idempotency record included). */
  readonly items: readonly string[];
  /** Its action count, idempotency record included. */
  readonly actions: number;
  /** Its estimated request bytes. */
  readonly bytes: number;
  /** Sent in a transaction of its own (its last group commit could not say which record failed). */
  readonly solo?: boolean;
}

/** Which candidates (by index) go in which group now, and which wait for a later round. */
export interface GroupPlan {
  /** Groups to commit side by side in this round; each holds at least one index. */
  readonly groups: number[][];
  /** Candidates that touch an item some earlier candidate of this round touches: they go in a later round. */
  readonly deferred: number[];
}

/** Limits of one group (defaults: DynamoDB's `TransactWriteItems` limits). */
export interface GroupLimits {
  readonly actions: number;
  readonly bytes: number;
}

const dynamoLimits: GroupLimits = { actions: MAX_TRANSACTION_ACTIONS, bytes: MAX_TRANSACTION_BYTES };

/**
 * Packs candidates first-fit, in order, into groups within the limits. One that touches an item an earlier one of this
 * round touches is deferred to the next round (two transactions on one item at once cancel each other); the first is
 * never deferred, so every round makes progress.
 */
export function planGroups(candidates: readonly GroupCandidate[], limits: GroupLimits = dynamoLimits): GroupPlan {
  const taken = new Set<string>();
  const groups: Array<{ members: number[]; actions: number; bytes: number; solo: boolean }> = [];
  const deferred: number[] = [];
  candidates.forEach((candidate, index) => {
    if (candidate.items.some((item) => taken.has(item))) {
      deferred.push(index);
      return;
    }
    for (const item of candidate.items) taken.add(item);
    const solo = candidate.solo === true;
    const fits = (g: (typeof groups)[number]) =>
      !g.solo && !solo && g.actions + candidate.actions <= limits.actions && g.bytes + candidate.bytes <= limits.bytes;
    const group = groups.find(fits);
    if (group === undefined) {
      groups.push({ members: [index], actions: candidate.actions, bytes: candidate.bytes, solo });
      return;
    }
    group.members.push(index);
    group.actions += candidate.actions;
    group.bytes += candidate.bytes;
  });
  return { groups: groups.map((g) => g.members), deferred };
}
