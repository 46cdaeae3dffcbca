/**
 * Prints src/strategies/transaction/group-commit/latency-table.ts: the means
 * group commit's probe policy reads, worked out once from the latency model
 * (latency-model.ts: a lognormal per operation class, and an integral for the
 * slowest of n single reads) instead of at run time in every container.
 * `npx tsx bench/latency-table.ts > src/strategies/transaction/group-commit/latency-table.ts` (then
 * `npx biome check --write` on it, which lays the rows out its way)
 * after changing the model's figures; test/unit/transaction/latency-table.test.ts
 * fails until then.
 */
import { pathToFileURL } from 'node:url';
import { meanSlowestSingleMs, meanTransactMs } from './latency-model.js';

/** Transaction sizes and batch sizes tabulated one by one: at most 100 actions in a transaction, 100 keys in a BatchGetItem. */
export const TABLE_SIZE = 100;
/** Batch sizes above TABLE_SIZE (SQS batches reach 10,000 records): the slowest read grows with ln n, interpolated between these. */
export const TAIL_SIZES = [100, 200, 500, 1_000, 2_000, 5_000, 10_000] as const;
/** Decimals kept: far below what the policy's threshold can notice. */
export const DECIMALS = 4;

const round = (ms: number) => Number(ms.toFixed(DECIMALS));
const sizes = Array.from({ length: TABLE_SIZE }, (_, i) => i + 1);

/** The table's values, from the model. */
export function latencyTable() {
  return {
    transact: sizes.map((items) => round(meanTransactMs(items))),
    slowest: sizes.map((n) => round(meanSlowestSingleMs(n))),
    tail: TAIL_SIZES.map((n) => [n, round(meanSlowestSingleMs(n))] as const),
  };
}

/** Eight numbers a line, so the file stays readable. */
function rows(values: readonly number[]): string {
  const lines: string[] = [];
  for (let i = 0; i < values.length; i += 8) lines.push(`  ${values.slice(i, i + 8).join(', ')},`);
  return lines.join('\n');
}

function source(): string {
  const { transact, slowest, tail } = latencyTable();
  return `/**
 * DynamoDB's mean latency as a Lambda function sees it, precomputed from the
 * bench's latency model (bench/latency-model.ts) by bench/latency-table.ts:
 * do not edit, regenerate (test/unit/transaction/latency-table.test.ts checks
 * it against the model). Group commit's probe policy (duplicate-probe.ts)
 * weighs one with the other.
 */

/** Mean ms of a \`TransactWriteItems\` of i items, i = 1..${TABLE_SIZE} (index i − 1). */
const TRANSACT_MEAN_MS: readonly number[] = [
${rows(transact)}
];

/** Mean ms of the slowest of n single-item reads sent side by side (a \`BatchGetItem\` of n keys), n = 1..${TABLE_SIZE}. */
const SLOWEST_SINGLE_MS: readonly number[] = [
${rows(slowest)}
];

/** Beyond ${TABLE_SIZE} reads: [n, ms], linear in ln n in between, the last value past the end. */
const SLOWEST_SINGLE_TAIL: readonly (readonly [number, number])[] = [
${tail.map(([n, ms]) => `  [${n}, ${ms}],`).join('\n')}
];

const at = (table: readonly number[], n: number) => table[Math.min(table.length, Math.max(1, Math.round(n))) - 1] as number;

/** Mean ms of a \`TransactWriteItems\` of \`items\` items (at most ${TABLE_SIZE}, the most one may hold). */
export function meanTransactMs(items: number): number {
  return at(TRANSACT_MEAN_MS, items);
}

/** Mean ms of the slowest of \`n\` single-item requests sent side by side: what a \`BatchGetItem\` of \`n\` keys is taken to cost. */
export function meanSlowestSingleMs(n: number): number {
  if (n <= ${TABLE_SIZE}) return at(SLOWEST_SINGLE_MS, n);
  for (let i = 1; i < SLOWEST_SINGLE_TAIL.length; i += 1) {
    const [n0, ms0] = SLOWEST_SINGLE_TAIL[i - 1] as readonly [number, number];
    const [n1, ms1] = SLOWEST_SINGLE_TAIL[i] as readonly [number, number];
    if (n <= n1) return ms0 + ((ms1 - ms0) * Math.log(n / n0)) / Math.log(n1 / n0);
  }
  return (SLOWEST_SINGLE_TAIL[SLOWEST_SINGLE_TAIL.length - 1] as readonly [number, number])[1];
}
`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.stdout.write(source());
