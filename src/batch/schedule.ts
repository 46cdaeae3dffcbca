/**
 * Bounded-concurrency scheduling with ordered lanes: records of one FIFO
 * message group run one after another and stop at the first failure;
 * independent records run side by side up to the concurrency limit. Before
 * anything runs, {@link heldBack} says which records an earlier record of
 * their group, already known to come back, holds back.
 */

/** How {@link runLanes} treats items. */
export interface LaneOptions<T> {
  /** At most this many lanes run at once. */
  readonly concurrency: number;
  /** Lane of an item (e.g. the FIFO message group); `undefined` gives the item a lane of its own. */
  readonly laneOf: (item: T) => string | undefined;
  /** Runs one item; resolves `true` when the lane may go on, `false` after a failure. Must not reject. */
  readonly run: (item: T) => Promise<boolean>;
  /** Called, in order, for each item left in a lane after a failure. */
  readonly skip: (item: T) => void;
}

/** Splits items into lanes, keeping the input order inside each lane. */
export function toLanes<T>(items: readonly T[], laneOf: (item: T) => string | undefined): T[][] {
  const lanes: T[][] = [];
  const byName = new Map<string, T[]>();
  for (const item of items) {
    const name = laneOf(item);
    if (name === undefined) {
      lanes.push([item]);
      continue;
    }
    let lane = byName.get(name);
    if (lane === undefined) {
      lane = [];
      byName.set(name, lane);
      lanes.push(lane);
    }
    lane.push(item);
  }
  return lanes;
}

/**
 * How an item stands before the handler runs, for {@link heldBack}:
 * - `blocks`: already settled and coming back (failed, in progress, invalid);
 * - `passes`: already settled and acknowledged;
 * - `waits`: about to run (or to be decided in its lane, after the records before it).
 */
export type Standing = 'blocks' | 'passes' | 'waits';

/**
 * FIFO before the handler: which items must not run because an earlier item
 * of their lane comes back, so that a redelivery finds them in order again.
 * A `waits` item is held back exactly when an earlier item of its lane
 * `blocks`; items without a lane (standard queues) never are. Returns one
 * flag per item, in input order.
 */
export function heldBack<T>(items: readonly T[], laneOf: (item: T) => string | undefined, standing: (item: T) => Standing): boolean[] {
  const blocked = new Set<string>();
  return items.map((item) => {
    const lane = laneOf(item);
    if (lane === undefined) return false;
    const s = standing(item);
    if (s === 'blocks') blocked.add(lane);
    return s === 'waits' && blocked.has(lane);
  });
}

async function runLane<T>(lane: readonly T[], options: LaneOptions<T>): Promise<void> {
  for (let i = 0; i < lane.length; i++) {
    const ok = await options.run(lane[i] as T);
    if (!ok) {
      for (const rest of lane.slice(i + 1)) options.skip(rest);
      return;
    }
  }
}

/** Runs every lane, at most `concurrency` at a time; resolves when all are done. */
export async function runLanes<T>(items: readonly T[], options: LaneOptions<T>): Promise<void> {
  const lanes = toLanes(items, options.laneOf);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < lanes.length) {
      const lane = lanes[next++] as T[];
      await runLane(lane, options);
    }
  }
  const workers = Array.from({ length: Math.min(options.concurrency, lanes.length) }, worker);
  await Promise.all(workers);
}
