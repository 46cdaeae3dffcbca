/**
 * Group commit's rounds, counted by cause (issue 23, "fewer cancelled
 * rounds"): the bench's workload through the transaction variants on
 * DynamoDB Local, one batch at a time, with every `TransactWriteItems` and
 * `BatchGetItem` recorded (size, start, end, what refused it). A batch's
 * requests fall into waves (a wave starts when a request starts after every
 * earlier one has ended); each wave of transactions after the first is a
 * second round, and its cause is read off the wave before it: a duplicate's
 * refused idempotency Put, another refusal (a business condition,
 * contention), or none (records deferred because their items overlap an
 * earlier record's).
 *
 * The same waves are then timed on the AWS model alone (aws-model.ts, no
 * CPU): each wave the slowest of its requests' draws, a batch the sum of its
 * waves, against Powertools' pattern on the same deliveries (three single
 * writes in a row per fresh record, one refused Put per duplicate, records
 * in parallel). DynamoDB Local decides which requests are sent, not how long
 * they take, so this figure does not move with the machine's load.
 *
 *   npx tsx bench/rounds.ts [--events 1000] [--dup-rate 0.25] [--only ours-transaction,...] [--draws 200] [--cache N]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startDynamoDBLocal } from '../infra/dynamodb-local.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../src/testing/index.js';
import { drawFloorMs, type ModelledOperation, modelledOperation } from './aws-model.js';
import { countedClient, createVariantTables } from './dynamo.js';
import { seededRandom } from './random.js';
import { mean, percentile } from './stats.js';
import { variants } from './variants.js';
import { generateWorkload, type Delivery } from './workload.js';

/** One request as it went. */
interface Sent {
  readonly op: ModelledOperation;
  readonly name: string;
  readonly start: number;
  end: number;
  /** Why DynamoDB refused it: `idempotency` (a refused idempotency Put), `other` (any other reason), or none. */
  refused?: 'idempotency' | 'other';
}

type Cause = 'duplicate' | 'other refusal' | 'overlap';

interface BatchRounds {
  readonly waves: Sent[][];
  /** Causes of the transaction waves after the first. */
  readonly causes: Cause[];
}

const isTx = (s: Sent) => s.name === 'TransactWriteItems';

/** Groups a batch's requests into waves: a wave starts when a request starts after all earlier ones have ended. */
export function waves(sent: readonly Sent[]): Sent[][] {
  const sorted = [...sent].sort((a, b) => a.start - b.start);
  const out: Sent[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last === undefined || s.start >= end) out.push([s]);
    else last.push(s);
    end = Math.max(end, s.end);
  }
  return out;
}

function classify(sent: readonly Sent[]): BatchRounds {
  const ws = waves(sent);
  const causes: Cause[] = [];
  let previous: Sent[] | undefined;
  for (const w of ws) {
    if (!w.some(isTx)) continue;
    if (previous !== undefined) {
      const refusals = previous.filter(isTx).map((s) => s.refused);
      causes.push(refusals.includes('idempotency') ? 'duplicate' : refusals.includes('other') ? 'other refusal' : 'overlap');
    }
    previous = w;
  }
  return { waves: ws, causes };
}

/** Reasons of a cancelled transaction: which of its items' conditions failed (the idempotency table's, or another). */
function refusalOf(error: unknown, input: Record<string, unknown>, idempotencyTable: string): 'idempotency' | 'other' {
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  const items = (input['TransactItems'] ?? []) as Array<Record<string, { TableName?: string }>>;
  const refusedIdempotency = reasons.some(
    (r, i) => r.Code === 'ConditionalCheckFailed' && Object.values(items[i] ?? {}).some((action) => action.TableName === idempotencyTable),
  );
  return refusedIdempotency ? 'idempotency' : 'other';
}

/** A batch's model ms: each wave the slowest of its requests' draws. */
function modelMs(random: () => number, ws: readonly Sent[][]): number {
  return ws.reduce((sum, w) => sum + Math.max(...w.map((s) => drawFloorMs(random, s.op))), 0);
}

/**
 * Powertools on the same deliveries: per fresh record three single writes in a row, per duplicate one
 * refused Put (none with its local cache, which holds every key of the run); records in parallel.
 */
function powertoolsMs(random: () => number, batch: readonly Delivery[], cached: boolean): number {
  const single = () => drawFloorMs(random, { kind: 'single' });
  return Math.max(0, ...batch.map((d) => (d.duplicate ? (cached ? 0 : single()) : single() + single() + single())));
}

/** Whether two records of the batch share a customer (their points items overlap). */
function overlaps(batch: readonly Delivery[]): boolean {
  return new Set(batch.map((d) => d.event.customerId)).size < batch.length;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000' },
      'dup-rate': { type: 'string', default: '0.25' },
      seed: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '60' },
      only: { type: 'string', default: 'ours-transaction' },
      draws: { type: 'string', default: '200' },
      /** The cache variants' maxEntries (default: every key of the run). */
      cache: { type: 'string' },
    },
  });
  const shape = { duplicateRate: Number(values['dup-rate']), batchSize: 10 };
  const seed = Number(values.seed);
  const measured = generateWorkload({ ...shape, events: Number(values.events), seed });
  const warm = generateWorkload({ ...shape, events: Number(values.warmup) * 10, seed: seed + 1, prefix: 'w' });
  const cacheEntries = values.cache === undefined ? measured.events.length + warm.events.length : Number(values.cache);
  const draws = Number(values.draws);
  const local = await startDynamoDBLocal({ jvm: 'stock', readyTimeoutMs: 120_000 });
  try {
    for (const id of values.only.split(',')) {
      const variant = variants.find((v) => v.id === id);
      if (variant === undefined) throw new Error(`unknown variant ${id}`);
      const tables = await createVariantTables(local.endpoint, `rounds-${Date.now()}-${id}`, {
        idempotency: variant.idempotencyTable,
        business: variant.business,
      });
      const counted = countedClient(local.endpoint);
      const idempotencyTable = tables.idempotency ?? '';
      let sent: Sent[] = [];
      counted.client.middlewareStack.add(
        (next, context) => async (args) => {
          const name = String(context['commandName'] ?? '').replace(/Command$/, '');
          const input = (args.input ?? {}) as Record<string, unknown>;
          const s: Sent = { name, op: modelledOperation(name, input), start: performance.now(), end: Number.NaN };
          sent.push(s);
          try {
            return await next(args);
          } catch (error) {
            if (name === 'TransactWriteItems') s.refused = refusalOf(error, input, idempotencyTable);
            throw error;
          } finally {
            s.end = performance.now();
          }
        },
        { step: 'initialize', name: 'benchRounds' },
      );
      const handler = variant.build({ counted, tables, cacheEntries, onEffect: () => {} });
      const context = lambdaContext({ functionName: 'bench', timeoutMs: 60_000 });
      const run = async (batch: readonly Delivery[]) => {
        sent = [];
        await handler(sqsEvent(batch.map((d) => sqsRecord({ body: d.event, messageId: d.messageId }))), context);
        return classify(sent);
      };
      for (const batch of warm.batches.slice(0, Number(values.warmup))) await run(batch);
      const rows: Array<{ batch: readonly Delivery[]; rounds: BatchRounds }> = [];
      for (const batch of measured.batches) rows.push({ batch, rounds: await run(batch) });
      counted.client.destroy();
      report(id, rows, draws, seed, variant.comparedWith === 'powertools-cache');
    }
  } finally {
    await local.stop();
  }
}

function report(
  id: string,
  rows: ReadonlyArray<{ batch: readonly Delivery[]; rounds: BatchRounds }>,
  draws: number,
  seed: number,
  cached: boolean,
): void {
  const n = rows.length;
  const pct = (k: number) => `${k} (${((100 * k) / n).toFixed(1)} %)`;
  const withDup = rows.filter((r) => r.batch.some((d) => d.duplicate)).length;
  const withOverlap = rows.filter((r) => overlaps(r.batch)).length;
  const causes = new Map<string, number>();
  const byShape = new Map<string, number>();
  let requests = 0;
  for (const { rounds } of rows) {
    for (const c of rounds.causes) causes.set(c, (causes.get(c) ?? 0) + 1);
    const shapeKey = rounds.waves
      .map((w) =>
        w
          .map(
            (s) =>
              `${s.name === 'TransactWriteItems' ? 'T' : s.name}${'items' in s.op ? s.op.items : ''}${s.refused === undefined ? '' : '!'}`,
          )
          .join('+'),
      )
      .join(' > ');
    byShape.set(shapeKey, (byShape.get(shapeKey) ?? 0) + 1);
    requests += rounds.waves.flat().length;
  }
  const random = seededRandom(seed);
  const ours: number[] = [];
  const pt: number[] = [];
  for (let k = 0; k < draws; k += 1)
    for (const { batch, rounds } of rows) {
      ours.push(modelMs(random, rounds.waves));
      pt.push(powertoolsMs(random, batch, cached));
    }
  const out = process.stdout;
  out.write(`\n${id}: ${n} batches, ${pct(withDup)} with a duplicate, ${pct(withOverlap)} with two records of one customer\n`);
  out.write(`  requests per batch ${(requests / n).toFixed(2)}; second rounds: ${pct([...causes.values()].reduce((a, b) => a + b, 0))}\n`);
  for (const [c, k] of [...causes.entries()].sort((a, b) => b[1] - a[1])) out.write(`    ${c.padEnd(14)} ${pct(k)}\n`);
  out.write('  batch shapes (waves in order; T20 a 20-item transaction, ! refused):\n');
  for (const [s, k] of [...byShape.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)) out.write(`    ${String(k).padStart(4)}  ${s}\n`);
  const ratio = mean(pt) / mean(ours);
  out.write(
    `  model alone on these requests: mean ${mean(ours).toFixed(1)} ms (p99 ${percentile(ours, 99).toFixed(1)}) vs Powertools${cached ? ', local cache,' : ''} ${mean(pt).toFixed(1)} (p99 ${percentile(pt, 99).toFixed(1)}): ${ratio.toFixed(3)}x records/s\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`rounds failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
