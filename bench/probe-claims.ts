/**
 * The claim strategy's request profile (issue 12, "find the per-record
 * overhead"): latency and CPU per request, DynamoDB Local's and Node's, for
 * our claim and completion as built and for lighter forms of them, next to a
 * Powertools-style `PutItem` claim, and a PartiQL `BatchExecuteStatement` of
 * ten fenced completions against ten single ones.
 *
 * Every shape runs in "batches" of 10 concurrent requests, interleaved batch
 * by batch (the first shape rotating), on DynamoDB Local with the JVM's
 * stock settings, after a warm-up of the same mix. Server CPU is read from
 * /proc around each timed batch (10 ms ticks: coarse per batch, unbiased over
 * many). Set-up writes (the claims a completion needs) are not timed.
 *
 *   npx tsx bench/probe-claims.ts [--batches 200] [--warmup 60] [--only complete,Powertools]
 */
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { BatchExecuteStatementCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { startDynamoDBLocal } from '../infra/dynamodb-local.js';
import { claimPutRequest, claimRequest, completeRequest, type CompleteParams } from '../src/stores/dynamodb/expressions.js';
import { completeStatement } from '../src/stores/dynamodb/statements.js';
import { totalRequests } from './counter.js';
import { countedClient, createVariantTables } from './dynamo.js';
import { processCpuReader } from './server-cpu.js';

/** The store's own batched completion (src/stores/dynamodb/statements.ts), without `RETURNING`; a refusal returns the item it found (`ALL_OLD`). */
function completeStatementOf(p: CompleteParams) {
  return { ...completeStatement(p, false), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
}

const BATCH = 10;
const args = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const batches = flag('--batches', 200);
const warmup = flag('--warmup', 60);
const RETENTION = 86_400_000;
const LEASE = 30_000;

type Doc = ReturnType<typeof countedClient>['doc'];
interface Shape {
  readonly name: string;
  /** Untimed: what the timed requests need (claimed keys). Returns the batch's state. */
  readonly setup?: (doc: Doc, table: string, keys: string[]) => Promise<Map<string, string>>;
  /** The timed part: one batch's requests. */
  readonly run: (doc: Doc, table: string, keys: string[], tokens: Map<string, string>) => Promise<number>;
}

/** Claims every key at once; a refused claim (a completed key) counts as answered. */
const claimWith = (mutate: (r: UpdateCommandInput) => UpdateCommandInput) => async (doc: Doc, table: string, keys: string[]) => {
  const now = Date.now();
  const settled = await Promise.allSettled(
    keys.map((id) =>
      doc.send(
        new UpdateCommand(
          mutate(
            claimRequest({
              tableName: table,
              id,
              token: randomUUID(),
              now,
              leaseMs: LEASE,
              retentionMs: RETENTION,
              payloadHash: 'h'.repeat(43),
              messageId: randomUUID(),
            }),
          ),
        ),
      ),
    ),
  );
  for (const r of settled) if (r.status === 'rejected' && (r.reason as Error).name !== 'ConditionalCheckFailedException') throw r.reason;
  return keys.length;
};

/** Removes the REMOVE clause of an update expression (the "without REMOVEs" shape). */
const withoutRemoves = (r: UpdateCommandInput): UpdateCommandInput => {
  const update = (r.UpdateExpression ?? '').replace(/\s*REMOVE .*$/, '');
  const used = (name: string) => update.includes(name) || (r.ConditionExpression ?? '').includes(name);
  const names = Object.fromEntries(Object.entries(r.ExpressionAttributeNames ?? {}).filter(([k]) => used(k)));
  return { ...r, UpdateExpression: update, ExpressionAttributeNames: names };
};

/** Claims the keys (untimed) and returns their tokens. */
async function claimAll(doc: Doc, table: string, keys: string[]): Promise<Map<string, string>> {
  const tokens = new Map<string, string>();
  const now = Date.now();
  await Promise.all(
    keys.map(async (id) => {
      const token = randomUUID();
      tokens.set(id, token);
      await doc.send(
        new UpdateCommand(
          claimRequest({ tableName: table, id, token, now, leaseMs: LEASE, retentionMs: RETENTION, messageId: randomUUID() }),
        ),
      );
    }),
  );
  return tokens;
}

const completeWith =
  (mutate: (r: UpdateCommandInput) => UpdateCommandInput) =>
  async (doc: Doc, table: string, keys: string[], tokens: Map<string, string>) => {
    const now = Date.now();
    await Promise.all(
      keys.map((id) =>
        doc.send(
          new UpdateCommand(mutate(completeRequest({ tableName: table, id, token: tokens.get(id) ?? '', now, retentionMs: RETENTION }))),
        ),
      ),
    );
    return keys.length;
  };

const allShapes: Shape[] = [
  { name: 'claim as built (ALL_NEW)', run: claimWith((r) => r) },
  { name: 'claim UPDATED_NEW', run: claimWith((r) => ({ ...r, ReturnValues: 'UPDATED_NEW' })) },
  { name: 'claim NONE', run: claimWith((r) => ({ ...r, ReturnValues: 'NONE' })) },
  { name: 'claim without REMOVEs', run: claimWith(withoutRemoves) },
  {
    name: 'Powertools-style PutItem claim',
    run: async (doc, table, keys) => {
      const now = Date.now();
      await Promise.all(
        keys.map((id) =>
          doc.send(
            new PutCommand({
              TableName: table,
              Item: { id, expiresAt: Math.floor((now + RETENTION) / 1000), status: 'IN_PROGRESS', leaseUntil: now + LEASE },
              ConditionExpression:
                'attribute_not_exists(#id) OR #exp < :nowSec OR (#st = :ip AND attribute_exists(#lease) AND #lease < :now)',
              ExpressionAttributeNames: { '#id': 'id', '#exp': 'expiresAt', '#st': 'status', '#lease': 'leaseUntil' },
              ExpressionAttributeValues: { ':nowSec': Math.floor(now / 1000), ':ip': 'IN_PROGRESS', ':now': now },
            }),
          ),
        ),
      );
      return keys.length;
    },
  },
  {
    name: 'claim as PutItem (our item, attribute_not_exists)',
    run: async (doc, table, keys) => {
      const now = Date.now();
      const payloadHash = 'h'.repeat(43);
      // The request the store sends for a fresh key.
      const put = (id: string) =>
        claimPutRequest({
          tableName: table,
          id,
          token: randomUUID(),
          now,
          leaseMs: LEASE,
          retentionMs: RETENTION,
          payloadHash,
          messageId: randomUUID(),
        });
      await Promise.all(keys.map((id) => doc.send(new PutCommand(put(id)))));
      return keys.length;
    },
  },
  {
    name: 'claim of a completed key (refused, ALL_OLD)',
    setup: async (doc, table, keys) => {
      const tokens = await claimAll(doc, table, keys);
      await completeWith((r) => r)(doc, table, keys, tokens);
      return tokens;
    },
    run: async (doc, table, keys) => {
      return claimWith((r) => r)(doc, table, keys);
    },
  },
  { name: 'complete as built (ALL_NEW)', setup: claimAll, run: completeWith((r) => r) },
  { name: 'complete NONE', setup: claimAll, run: completeWith((r) => ({ ...r, ReturnValues: 'NONE' })) },
  { name: 'complete without REMOVEs', setup: claimAll, run: completeWith(withoutRemoves) },
  { name: 'complete without REMOVEs, NONE', setup: claimAll, run: completeWith((r) => ({ ...withoutRemoves(r), ReturnValues: 'NONE' })) },
  {
    name: 'Powertools-style completion (no condition)',
    setup: claimAll,
    run: async (doc, table, keys) => {
      const now = Date.now();
      await Promise.all(
        keys.map((id) =>
          doc.send(
            new UpdateCommand({
              TableName: table,
              Key: { id },
              UpdateExpression: 'SET #st = :c, #exp = :exp, #r = :r',
              ExpressionAttributeNames: { '#st': 'status', '#exp': 'expiresAt', '#r': 'result' },
              ExpressionAttributeValues: { ':c': 'COMPLETED', ':exp': Math.floor((now + RETENTION) / 1000), ':r': 'null' },
            }),
          ),
        ),
      );
      return keys.length;
    },
  },
  {
    name: 'complete x10 in one BatchExecuteStatement',
    setup: claimAll,
    run: async (doc, table, keys, tokens) => {
      const now = Date.now();
      const out = await doc.send(
        new BatchExecuteStatementCommand({
          Statements: keys.map((id) =>
            completeStatementOf({ tableName: table, id, token: tokens.get(id) ?? '', now, retentionMs: RETENTION }),
          ),
        }),
      );
      const errors = (out.Responses ?? []).filter((r) => r.Error !== undefined);
      if (errors.length > 0) throw new Error(`batch completion refused: ${JSON.stringify(errors[0])}`);
      return keys.length;
    },
  },
];

// `--only a,b`: the shapes whose names contain one of these words (all by default).
const only = (() => {
  const i = args.indexOf('--only');
  return i === -1 ? undefined : (args[i + 1] ?? '').split(',');
})();
const shapes = only === undefined ? allShapes : allShapes.filter((s) => only.some((w) => s.name.includes(w)));

interface Tally {
  wallMs: number;
  serverMs: number;
  nodeMs: number;
  requests: number;
  records: number;
  batches: number;
}

async function main(): Promise<void> {
  const ddb = await startDynamoDBLocal({ jvm: 'stock', ignoreEnv: true });
  try {
    const serverCpu = processCpuReader(ddb.pid);
    const lanes = await Promise.all(
      shapes.map(async (shape, i) => {
        const tables = await createVariantTables(ddb.endpoint, `probe-${Date.now()}-${i}`, { idempotency: 'ours', business: 'points' });
        return { shape, table: tables.idempotency ?? '', client: countedClient(ddb.endpoint) };
      }),
    );
    const tallies = shapes.map((): Tally => ({ wallMs: 0, serverMs: 0, nodeMs: 0, requests: 0, records: 0, batches: 0 }));
    let seq = 0;
    for (let b = 0; b < warmup + batches; b++) {
      const measured = b >= warmup;
      for (let j = 0; j < lanes.length; j++) {
        const index = (b + j) % lanes.length;
        const lane = lanes[index];
        if (lane === undefined) continue;
        const keys = Array.from({ length: BATCH }, () => `probe#${(seq += 1)}`);
        const state =
          lane.shape.setup === undefined ? new Map<string, string>() : await lane.shape.setup(lane.client.doc, lane.table, keys);
        lane.client.counter.take();
        const cpu0 = serverCpu?.() ?? 0;
        const node0 = process.cpuUsage();
        const t0 = performance.now();
        const records = await lane.shape.run(lane.client.doc, lane.table, keys, state);
        const wall = performance.now() - t0;
        const node = process.cpuUsage(node0);
        const server = (serverCpu?.() ?? 0) - cpu0;
        const requests = totalRequests(lane.client.counter.take());
        const t = tallies[index];
        if (!measured || t === undefined) continue;
        t.wallMs += wall;
        t.serverMs += server;
        t.nodeMs += (node.user + node.system) / 1000;
        t.requests += requests;
        t.records += records;
        t.batches += 1;
      }
      if ((b + 1) % 50 === 0) process.stderr.write(`[probe] batch ${b + 1}/${warmup + batches}\n`);
    }
    print(tallies);
    for (const lane of lanes) lane.client.client.destroy();
  } finally {
    await ddb.stop();
  }
}

function print(tallies: readonly Tally[]): void {
  const f = (n: number) => n.toFixed(2).padStart(7);
  console.log(`${batches} batches of ${BATCH} per shape, interleaved; DynamoDB Local, stock JVM`);
  console.log(
    `${'shape'.padEnd(44)} ${'req/rec'.padStart(7)} ${'wall ms/batch'.padStart(13)} ${'server ms/rec'.padStart(13)} ${'node ms/rec'.padStart(11)}`,
  );
  shapes.forEach((s, i) => {
    const t = tallies[i];
    if (t === undefined || t.batches === 0) return;
    console.log(
      `${s.name.padEnd(44)} ${f(t.requests / t.records)} ${f(t.wallMs / t.batches).padStart(13)} ${f(t.serverMs / t.records).padStart(13)} ${f(t.nodeMs / t.records).padStart(11)}`,
    );
  });
}

await main();
