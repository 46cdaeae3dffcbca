/**
 * A profile of DynamoDB Local's cost per request shape, for the transaction
 * strategy's group commit (issue 12, "find the per-record overhead"): wall
 * time and server CPU of `TransactWriteItems` by item count, one at a time
 * and side by side, committed and cancelled, with our idempotency condition
 * or a bare `attribute_not_exists`, with and without
 * `ReturnValuesOnConditionCheckFailure`, a consistent `BatchGetItem` of 10
 * keys, and Powertools' single writes for reference.
 *
 * Every "step" is one unit of work (a batch of 10 records, or one request);
 * the steps of all scenarios run interleaved, round after round, so the JIT
 * and the machine's load hit them alike. Server CPU comes from /proc (see
 * server-cpu.ts): coarse per step (10 ms ticks) but unbiased over many.
 *
 *   npx tsx bench/probe-transactions.ts [--rounds 300] [--warmup 150] [--only a,b]   (alone on the machine: it times requests)
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { BatchGetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDBLocal } from '../infra/dynamodb-local.js';
import { commitPut } from '../src/stores/dynamodb/expressions.js';
import type { TransactItem } from '../src/engine/store.js';
import { totalRequests } from './counter.js';
import { countedClient, createVariantTables, type CountedClient } from './dynamo.js';
import { processCpuReader } from './server-cpu.js';
import { mean, median } from './stats.js';

interface Ctx {
  readonly counted: CountedClient;
  readonly idem: string;
  readonly points: string;
  /** A fresh key per call. */
  readonly fresh: () => string;
  /** Keys already COMPLETED (for duplicates and reads). */
  readonly done: string[];
}

const now = () => Date.now();

/** One record: our idempotency Put (condition as `commitPut` builds it, or variants) + the points ADD on its own customer. */
function record(ctx: Ctx, key: string, shape: { condition?: 'ours' | 'bare'; returnOld?: boolean } = {}): TransactItem[] {
  const t = now();
  const item = {
    id: `bench#${key}`,
    status: 'COMPLETED',
    expiresAt: Math.floor(t / 1000) + 86_400,
    attempts: 1,
    completedAt: t,
    messageId: `m-${key}`,
  };
  const put = commitPut(ctx.idem, item, t);
  const { ReturnValuesOnConditionCheckFailure: _old, ...noOld } = put;
  const bare = {
    TableName: ctx.idem,
    Item: item,
    ConditionExpression: 'attribute_not_exists(#id)',
    ExpressionAttributeNames: { '#id': 'id' },
    ...(shape.returnOld === false ? {} : { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
  };
  const chosen = shape.condition === 'bare' ? bare : shape.returnOld === false ? noOld : put;
  const add = {
    Update: {
      TableName: ctx.points,
      Key: { pk: `customer#${key}` },
      UpdateExpression: 'ADD points :p, applied :one',
      ExpressionAttributeValues: { ':p': 7, ':one': 1 },
    },
  };
  return [{ Put: chosen }, add];
}

async function transact(ctx: Ctx, items: TransactItem[]): Promise<'ok' | 'cancelled'> {
  try {
    await ctx.counted.doc.send(new TransactWriteCommand({ TransactItems: items }));
    return 'ok';
  } catch (err) {
    if ((err as { name?: string }).name === 'TransactionCanceledException') return 'cancelled';
    throw err;
  }
}

const records = (ctx: Ctx, n: number, shape?: Parameters<typeof record>[2]) =>
  Array.from({ length: n }, () => record(ctx, ctx.fresh(), shape));
const split = <T>(xs: T[], parts: number): T[][] =>
  Array.from({ length: parts }, (_, i) => xs.filter((_, j) => j % parts === i)).filter((g) => g.length > 0);

/** A duplicate: a record whose key is already COMPLETED. */
const duplicate = (ctx: Ctx) => record(ctx, ctx.done[Math.floor(Math.random() * ctx.done.length)] as string);

type Step = (ctx: Ctx) => Promise<void>;

/** Powertools' claim: a PutItem with `attribute_not_exists`. */
async function putClaim(ctx: Ctx): Promise<void> {
  const key = ctx.fresh();
  await ctx.counted.doc.send(
    new PutCommand({
      TableName: ctx.idem,
      Item: { id: `bench#${key}`, status: 'INPROGRESS', expiration: Math.floor(now() / 1000) + 3600 },
      ConditionExpression: 'attribute_not_exists(id)',
    }),
  );
}

const scenarios: Record<string, Step> = {
  // One transaction by size (records of 2 items each).
  'tx-2 (1 record)': async (ctx) => void (await transact(ctx, records(ctx, 1).flat())),
  'tx-4 (2 records)': async (ctx) => void (await transact(ctx, records(ctx, 2).flat())),
  'tx-10 (5 records)': async (ctx) => void (await transact(ctx, records(ctx, 5).flat())),
  'tx-20 (10 records)': async (ctx) => void (await transact(ctx, records(ctx, 10).flat())),
  // A batch of 10 records split into parallel groups.
  'batch 10: 2 x tx-10 parallel': async (ctx) => void (await Promise.all(split(records(ctx, 10), 2).map((g) => transact(ctx, g.flat())))),
  'batch 10: 5 x tx-4 parallel': async (ctx) => void (await Promise.all(split(records(ctx, 10), 5).map((g) => transact(ctx, g.flat())))),
  'batch 10: 10 x tx-2 parallel': async (ctx) => void (await Promise.all(records(ctx, 10).map((g) => transact(ctx, g)))),
  'batch 10: 2 x tx-10 one after the other': async (ctx) => {
    for (const g of split(records(ctx, 10), 2)) await transact(ctx, g.flat());
  },
  // Independent transactions side by side: does the server run them in parallel?
  '2 x tx-20 parallel': async (ctx) =>
    void (await Promise.all([transact(ctx, records(ctx, 10).flat()), transact(ctx, records(ctx, 10).flat())])),
  '4 x tx-20 parallel': async (ctx) => void (await Promise.all([1, 2, 3, 4].map(() => transact(ctx, records(ctx, 10).flat())))),
  // Cancelled: one duplicate among 10 records (the cancelled request alone, then the whole batch as group commit does it).
  'tx-20 cancelled (1 duplicate)': async (ctx) => {
    const outcome = await transact(ctx, [...duplicate(ctx), ...records(ctx, 9).flat()]);
    if (outcome !== 'cancelled') throw new Error('expected a cancellation');
  },
  'batch 10 with 1 dup: tx-20 cancelled + tx-18': async (ctx) => {
    const fresh = records(ctx, 9).flat();
    await transact(ctx, [...duplicate(ctx), ...fresh]);
    await transact(ctx, fresh);
  },
  'batch 10 with 1 dup: 2 x tx-10 parallel, then tx-8': async (ctx) => {
    const [a, b] = split([duplicate(ctx), ...records(ctx, 9)], 2) as [TransactItem[][], TransactItem[][]];
    await Promise.all([transact(ctx, a.flat()), transact(ctx, b.flat())]);
    await transact(ctx, a.slice(1).flat());
  },
  // Condition and return values.
  'tx-20 bare attribute_not_exists': async (ctx) => void (await transact(ctx, records(ctx, 10, { condition: 'bare' }).flat())),
  'tx-20 without ReturnValuesOnConditionCheckFailure': async (ctx) =>
    void (await transact(ctx, records(ctx, 10, { returnOld: false }).flat())),
  'tx-20 minimal Put item (id, status, expiresAt)': async (ctx) =>
    void (await transact(
      ctx,
      records(ctx, 10).flatMap(([put, add]) => {
        const { attempts: _a, completedAt: _c, messageId: _m, ...item } = (put?.Put?.Item ?? {}) as Record<string, unknown>;
        return [{ Put: { ...(put?.Put as NonNullable<TransactItem['Put']>), Item: item } }, add as TransactItem];
      }),
    )),
  // Control for the parallel runs: do single writes run side by side on this machine?
  '10 x PutItem parallel': async (ctx) => void (await Promise.all(Array.from({ length: 10 }, () => putClaim(ctx)))),
  '10 x PutItem one after the other': async (ctx) => {
    for (let i = 0; i < 10; i += 1) await putClaim(ctx);
  },
  // Reads and single writes.
  'BatchGetItem 10 keys (consistent, 3 found)': async (ctx) => {
    const keys = [...ctx.done.slice(-3).map((k) => `bench#${k}`), ...Array.from({ length: 7 }, () => `bench#${ctx.fresh()}`)];
    await ctx.counted.doc.send(
      new BatchGetCommand({ RequestItems: { [ctx.idem]: { Keys: keys.map((id) => ({ id })), ConsistentRead: true } } }),
    );
  },
  'PutItem attribute_not_exists (Powertools claim)': putClaim,
  'UpdateItem ADD (the effect alone)': async (ctx) => {
    await ctx.counted.doc.send(
      new UpdateCommand({
        TableName: ctx.points,
        Key: { pk: `customer#${ctx.fresh()}` },
        UpdateExpression: 'ADD points :p, applied :one',
        ExpressionAttributeValues: { ':p': 7, ':one': 1 },
      }),
    );
  },
};

interface Tally {
  wall: number[];
  server: number;
  node: number;
  requests: number;
}

function args(): { rounds: number; warmup: number; only: string[] | undefined } {
  const get = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? undefined : process.argv[i + 1];
  };
  const only = get('only')?.split(',');
  return { rounds: Number(get('rounds') ?? 300), warmup: Number(get('warmup') ?? 150), only };
}

async function main(): Promise<void> {
  const { rounds, warmup, only } = args();
  const local = await startDynamoDBLocal({ jvm: 'stock', ignoreEnv: true });
  const serverCpu = processCpuReader(local.pid);
  try {
    const tables = await createVariantTables(local.endpoint, `probe-${Date.now()}`, { idempotency: 'ours', business: 'points' });
    const counted = countedClient(local.endpoint);
    let n = 0;
    const done: string[] = [];
    const ctx: Ctx = { counted, idem: tables.idempotency as string, points: tables.business, fresh: () => `k${n++}`, done };
    // Some COMPLETED keys for the duplicates and reads.
    for (let i = 0; i < 50; i += 1) {
      const key = ctx.fresh();
      await transact(ctx, record(ctx, key));
      done.push(key);
    }
    const names = Object.keys(scenarios).filter((s) => only === undefined || only.some((o) => s.includes(o)));
    const tallies = new Map<string, Tally>(names.map((s) => [s, { wall: [], server: 0, node: 0, requests: 0 }]));
    for (let round = 0; round < warmup + rounds; round += 1) {
      const measured = round >= warmup;
      // Rotate the first scenario each round.
      const order = names.map((_, i) => names[(i + round) % names.length] as string);
      for (const name of order) {
        const step = scenarios[name] as Step;
        const tally = tallies.get(name) as Tally;
        const s0 = serverCpu?.() ?? 0;
        const n0 = process.cpuUsage();
        counted.counter.take();
        const t0 = performance.now();
        await step(ctx);
        const wall = performance.now() - t0;
        if (!measured) continue;
        const dn = process.cpuUsage(n0);
        tally.wall.push(wall);
        tally.server += (serverCpu?.() ?? 0) - s0;
        tally.node += (dn.user + dn.system) / 1000;
        tally.requests += totalRequests(counted.counter.take());
      }
      if ((round + 1) % 50 === 0) process.stderr.write(`[probe] round ${round + 1}/${warmup + rounds}\n`);
    }
    const rows = names.map((name) => {
      const t = tallies.get(name) as Tally;
      const k = t.wall.length;
      return `| ${name} | ${(t.requests / k).toFixed(1)} | ${median(t.wall).toFixed(2)} | ${mean(t.wall).toFixed(2)} | ${(t.server / k).toFixed(2)} | ${(t.node / k).toFixed(2)} |`;
    });
    process.stdout.write(
      [
        `rounds ${rounds} (+${warmup} warm-up), DynamoDB Local stock JVM, load ${loadAverage()}`,
        '',
        '| step | requests | wall p50 ms | wall mean ms | DynamoDB Local CPU ms | Node CPU ms |',
        '| --- | --- | --- | --- | --- | --- |',
        ...rows,
        '',
      ].join('\n'),
    );
    counted.client.destroy();
  } finally {
    await local.stop();
  }
}

function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
}

await main();
