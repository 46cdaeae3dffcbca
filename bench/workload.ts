/**
 * The seeded workload every variant gets: business events (an order was
 * paid) delivered through SQS in batches, some of them delivered again under
 * a new message id, as a producer that re-sends an event does. The business
 * key is the order number in the body, never the message id.
 */
import { randomInt, seededRandom } from './random.js';

/** The business event, the message body. */
export interface OrderPaid {
  readonly orderNo: string;
  readonly customerId: string;
  readonly amount: number;
}

/** One SQS delivery of an event. */
export interface Delivery {
  readonly messageId: string;
  readonly event: OrderPaid;
  /** A later delivery of an event delivered before (in an earlier batch). */
  readonly duplicate: boolean;
}

/** What to generate. */
export interface WorkloadOptions {
  /** Unique business events. */
  readonly events: number;
  /** Extra deliveries, as a share of `events` (0.25: 25 duplicates per 100 events). */
  readonly duplicateRate: number;
  readonly batchSize: number;
  readonly seed: number;
  /** Prepended to order numbers, customer ids and message ids (the warm-up uses its own). */
  readonly prefix?: string;
}

/** The deliveries in SQS batches, plus what a correct consumer must end with. */
export interface Workload {
  readonly events: readonly OrderPaid[];
  readonly batches: ReadonlyArray<readonly Delivery[]>;
  readonly deliveries: number;
  readonly duplicates: number;
  /** Sum of `pointsFor` over the unique events: the points a correct consumer adds. */
  readonly expectedPoints: number;
  /** Prefix of this workload's customer ids and order numbers. */
  readonly prefix: string;
}

/** Loyalty points an order earns: the business effect the ADD variants apply. */
export function pointsFor(event: OrderPaid): number {
  return Math.floor(event.amount / 10);
}

/** Events per customer on average: several orders land on one customer item, as in real loyalty accounts. */
const EVENTS_PER_CUSTOMER = 5;

function generateEvents(count: number, prefix: string, random: () => number): OrderPaid[] {
  const customers = Math.max(1, Math.ceil(count / EVENTS_PER_CUSTOMER));
  return Array.from({ length: count }, (_, i) => ({
    orderNo: `${prefix}o-${i + 1}`,
    customerId: `${prefix}c-${1 + randomInt(random, customers)}`,
    amount: 10 + randomInt(random, 990),
  }));
}

interface Slot {
  readonly at: number;
  readonly event: OrderPaid;
  readonly duplicate: boolean;
}

/**
 * Places each duplicate at least one batch after its original: event j goes
 * out at time j; a re-send of j at `j + batchSize + r`. At least `batchSize`
 * originals lie strictly between the two, so they can never share a batch
 * (a re-send comes later; two copies racing in one batch is another test).
 */
function scheduleDuplicates(events: readonly OrderPaid[], count: number, batchSize: number, random: () => number): Slot[] {
  const spread = Math.max(batchSize, events.length / 4);
  return Array.from({ length: count }, () => {
    const original = randomInt(random, events.length);
    // Fractional offset: a tie with an original's integer time cannot happen unless random() is 0, and then the stable sort keeps the original first.
    return { at: original + batchSize + random() * spread, event: events[original] as OrderPaid, duplicate: true };
  });
}

/**
 * Generates the workload. The same options give the same workload, byte for
 * byte (message ids included).
 *
 * @throws RangeError for a non-positive event count or batch size, or a negative rate.
 */
export function generateWorkload(options: WorkloadOptions): Workload {
  const { events: count, duplicateRate, batchSize, seed } = options;
  const prefix = options.prefix ?? '';
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`events must be a positive integer, got ${count}.`);
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}.`);
  if (!(duplicateRate >= 0)) throw new RangeError(`duplicateRate must be 0 or more, got ${duplicateRate}.`);
  const random = seededRandom(seed);
  const events = generateEvents(count, prefix, random);
  const duplicates = Math.round(count * duplicateRate);
  const slots: Slot[] = [
    ...events.map((event, i) => ({ at: i, event, duplicate: false })),
    ...scheduleDuplicates(events, duplicates, batchSize, random),
  ];
  slots.sort((a, b) => a.at - b.at);
  const batches = cutBatches(slots, batchSize).map((batch, b) =>
    batch.map((s, i): Delivery => ({ messageId: `${prefix}m-${b * batchSize + i + 1}`, event: s.event, duplicate: s.duplicate })),
  );
  const expectedPoints = events.reduce((sum, e) => sum + pointsFor(e), 0);
  return { events, batches, deliveries: slots.length, duplicates, expectedPoints, prefix };
}

/**
 * Cuts the time-ordered slots into batches with no event twice in one batch:
 * a second copy waits for the next batch. Two re-sends of one event racing
 * in one batch is a different test (ours runs the second as a follower of
 * the first, Powertools runs both), and it would blur the cost of a single
 * duplicate delivery that the report splits out.
 */
function cutBatches(slots: readonly Slot[], batchSize: number): Slot[][] {
  const batches: Slot[][] = [];
  let waiting = [...slots];
  while (waiting.length > 0) {
    const batch: Slot[] = [];
    const inBatch = new Set<string>();
    const later: Slot[] = [];
    for (const slot of waiting) {
      if (batch.length < batchSize && !inBatch.has(slot.event.orderNo)) {
        batch.push(slot);
        inBatch.add(slot.event.orderNo);
      } else {
        later.push(slot);
      }
    }
    batches.push(batch);
    waiting = later;
  }
  return batches;
}

/** What a run's workloads are made from (the bench's options of the same names). */
export interface WorkloadArgs {
  readonly events: number;
  readonly duplicateRate: number;
  readonly batch: number;
  readonly seed: number;
  readonly warmup: number;
}

/**
 * The measured workload and the warm-up's (its own keys, prefix "w", so the
 * measured effects can be read apart from it), as a bench run's arguments ask.
 */
export function benchWorkloads(args: WorkloadArgs): { measured: Workload; warmup: Workload } {
  const shape = { duplicateRate: args.duplicateRate, batchSize: args.batch };
  const measured = generateWorkload({ ...shape, events: args.events, seed: args.seed });
  const warm = generateWorkload({ ...shape, events: Math.max(1, args.warmup * args.batch), seed: args.seed + 1, prefix: 'w' });
  return { measured, warmup: { ...warm, batches: warm.batches.slice(0, args.warmup) } };
}

/** What a report says of the workload it ran. */
export interface WorkloadSummary {
  readonly events: number;
  readonly duplicates: number;
  readonly deliveries: number;
  readonly batches: number;
  readonly batchSize: number;
  readonly seed: number;
  readonly duplicateRate: number;
  readonly warmupBatches: number;
  readonly slices: number;
  readonly latencyMs: number;
  readonly unitsCounted: boolean;
  /** `--aws`: the run used the AWS model. */
  readonly aws: boolean;
}

export function workloadSummary(
  measured: Workload,
  warmup: Workload,
  args: WorkloadArgs & { readonly latencyMs: number; readonly units: boolean; readonly aws: boolean },
  slices: number,
): WorkloadSummary {
  return {
    events: measured.events.length,
    duplicates: measured.duplicates,
    deliveries: measured.deliveries,
    batches: measured.batches.length,
    batchSize: args.batch,
    seed: args.seed,
    duplicateRate: args.duplicateRate,
    warmupBatches: warmup.batches.length,
    slices,
    latencyMs: args.latencyMs,
    unitsCounted: args.units,
    aws: args.aws,
  };
}
