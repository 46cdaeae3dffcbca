/**
 * What the AWS model alone predicts for one batch of 10, without any CPU:
 * each variant's requests drawn from aws-model.ts in the order the variant
 * sends them (the shapes below, read off the bench's request counts and the
 * libraries' code), mean and p50 / p99 over many seeded batches. A check on
 * the measured figures: where a variant beats its prediction, CPU (not
 * DynamoDB's latency) made the difference.
 *
 * `npx tsx bench/aws-montecarlo.ts [--batches N] [--dup-share S] [--overlap P]`: S is the share of
 * deliveries that are duplicates (0.2 for the bench's default `--dup-rate 0.25`), P the share of
 * batches with two records of one customer, whose items overlap: group commit sends the second in a
 * round of its own (about 0.1 in the bench's workload).
 */
import { parseArgs } from 'node:util';
import { drawFloorMs } from './aws-model.js';
import { seededRandom } from './random.js';
import { mean, percentile } from './stats.js';

const RECORDS = 10;

type Draw = () => number;

/** What a batch holds that changes the transaction's requests. */
interface BatchMix {
  /** Records of the batch whose key is already COMPLETED. */
  readonly duplicates: number;
  readonly overlap: boolean;
}

/** The batch shapes, each a batch's ms from its mix. */
function shapes(random: () => number): Record<string, (mix: BatchMix) => number> {
  const single: Draw = () => drawFloorMs(random, { kind: 'single' });
  const tx = (items: number) => drawFloorMs(random, { kind: 'transact', items });
  const batch = (items: number) => drawFloorMs(random, { kind: 'batch', items });
  const slowest = (f: Draw) => Math.max(...Array.from({ length: RECORDS }, f));
  const items = 2 * RECORDS;
  return {
    // processInParallel: each record Put → effect → completing Update, independently.
    'Powertools (3 writes in a row per record, records in parallel)': () => slowest(() => single() + single() + single()),
    // The default's per-record requests (from 512 MB): a PutItem per claim, all before the handler runs; then each record
    // runs and is completed as its effect ends (the completions a few ms apart share a request: not modelled).
    'ours, claim, per-record (claims alone; then effect + completion)': () => slowest(single) + slowest(() => single() + single()),
    'ours, claim, pipelined (each record a chain, as Powertools)': () => slowest(() => single() + single() + single()),
    // The default's batched requests (below 512 MB and on Managed Instances): one BatchExecuteStatement of INSERTs; the
    // items they met read in one BatchGetItem; the fresh records' effects in parallel; their completions in one
    // BatchExecuteStatement once no handler runs.
    'ours, claim, batched (claims together, completions together)': (m) => {
      const fresh = RECORDS - m.duplicates;
      const effects = fresh === 0 ? 0 : Math.max(...Array.from({ length: fresh }, single));
      return batch(RECORDS) + (m.duplicates > 0 ? batch(m.duplicates) : 0) + effects + (fresh === 0 ? 0 : batch(fresh));
    },
    // Group commit, no probe: a duplicate cancels the group, which is sent again without it; an overlapping record commits after.
    'ours, transaction, no probe': (m) => tx(items) + (m.duplicates > 0 ? tx(items - 2 * m.duplicates) : 0) + (m.overlap ? tx(2) : 0),
    // With the probe: a consistent BatchGetItem of the keys, then the group without the duplicates.
    'ours, transaction, probe': (m) => batch(RECORDS) + tx(items) + (m.overlap ? tx(2) : 0),
    'ours, state machine (1 conditional update per record)': () => slowest(single),
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      batches: { type: 'string', default: '20000' },
      'dup-share': { type: 'string', default: '0.2' },
      overlap: { type: 'string', default: '0.1' },
    },
  });
  const batches = Number(values.batches);
  const share = Number(values['dup-share']);
  const overlap = Number(values.overlap);
  const random = seededRandom(1);
  const dupBatch = 1 - (1 - share) ** RECORDS;
  const duplicatesOf = () => Array.from({ length: RECORDS }, () => random() < share).filter(Boolean).length;
  process.stdout.write(
    `AWS model alone (no CPU), ${batches} batches of ${RECORDS}, ${(share * 100).toFixed(0)} % of deliveries duplicates ` +
      `(${(dupBatch * 100).toFixed(0)} % of batches hold one), ${(overlap * 100).toFixed(0)} % of batches with two records of one customer:\n`,
  );
  const rows = Object.entries(shapes(random)).map(([name, shape]) => {
    const ms = Array.from({ length: batches }, () => shape({ duplicates: duplicatesOf(), overlap: random() < overlap }));
    return { name, mean: mean(ms), p50: percentile(ms, 50), p99: percentile(ms, 99) };
  });
  const pt = rows[0]?.mean ?? Number.NaN;
  for (const r of rows)
    process.stdout.write(
      `  ${r.name.padEnd(66)} mean ${r.mean.toFixed(1).padStart(5)} ms (${(pt / r.mean).toFixed(2)}x Powertools' records/s)  p50 ${r.p50.toFixed(1)}  p99 ${r.p99.toFixed(1)}\n`,
    );
}

main();
