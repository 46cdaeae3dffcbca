/**
 * FIFO, claim strategy: a key whose copies lead several message groups of one batch is claimed once, by its first
 * copy. Should that copy be held back unrun (behind a returned record of its own group), its claim must not stall the
 * key's copy in another group at every delivery. So the groups that share a key run as one lane, in batch order, each
 * still stopping at its own first returned record: when a copy in another group is reached, the first copy has either
 * run (the copy follows it) or been released unrun (the copy claims the key afresh and runs). Nothing waits on another
 * lane, and no two copies of a key run in one invocation.
 */
import type { LeaderRef } from '../strategies/types.js';

/** A record of the run, as the lane merging sees it. */
export interface LaneMember {
  readonly lane: string | undefined;
  readonly leader?: LeaderRef | undefined;
}

/** The merged lane of each message group that shares a key with another group (transitively); others are absent. */
export function mergedLanes(members: readonly LaneMember[]): ReadonlyMap<string, string> {
  const parent = new Map<string, string>();
  const root = (g: string): string => {
    let r = g;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as string;
    return r;
  };
  for (const { lane, leader } of members) {
    if (lane === undefined || leader?.lane === undefined || leader.lane === lane) continue;
    const [a, b] = [root(lane), root(leader.lane)];
    parent.set(a, a);
    parent.set(b, a);
  }
  const merged = new Map<string, string>();
  for (const g of parent.keys()) merged.set(g, `\u0001${root(g)}`);
  return merged;
}
