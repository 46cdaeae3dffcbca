/**
 * TEMPORARY experiment harness (not part of `npm run bench`): variants of
 * ours (and of both sides' client settings) measured interleaved in one run.
 *
 *   npx tsx bench/exp.ts <experiment> [rounds]
 */
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/dynamodb-local.js';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency } from '../src/index.js';
import { lambdaContext } from '../src/testing/index.js';
import { businessItem, type BatchHandler } from './contenders.js';
import { setUpDynamo, type BenchTables } from './dynamo.js';
import { percentile } from './stats.js';
import { KeySource, orderEvent, type Order } from './workload.js';

type Side = 'ours' | 'powertools';
interface HttpSettings {
  readonly keepAlive: boolean;
  readonly maxSockets: number;
}
interface VariantSpec {
  readonly name: string;
  readonly side: Side;
  readonly tx: boolean;
  readonly concurrency?: number;
  readonly stripClaimRV?: boolean;
  readonly stripCompleteRV?: boolean;
  readonly http?: HttpSettings;
  /** Ours: skip the payload hash (payload: false). */
  readonly noPayload?: boolean;
  /** Ours: no logger line at all (logger: false). */
  readonly noLogger?: boolean;
  /** Ours: pre-built store options (e.g. hashKeys). */
  readonly plainDoc?: boolean;
  /** Powertools: records one after another (processInParallel: false). */
  readonly sequential?: boolean;
}

interface Built {
  readonly handler: BatchHandler;
  readonly rtt: Map<string, number[]>;
  readonly phases: { claim: number[]; handler: number[]; finish: number[] };
  close(): void;
}

function makeClient(endpoint: string, http: HttpSettings | undefined, rtt: Map<string, number[]>) {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    ...(http === undefined
      ? {}
      : { requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: http.keepAlive, maxSockets: http.maxSockets }) }) }),
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const t = performance.now();
      try {
        return await next(args);
      } finally {
        const name = String(context['commandName'] ?? '?').replace(/Command$/, '');
        const list = rtt.get(name) ?? [];
        list.push(performance.now() - t);
        rtt.set(name, list);
      }
    },
    { step: 'deserialize', name: 'expRtt' },
  );
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc };
}

/** The DocumentClient with ReturnValues stripped from claim and/or complete UpdateItems; Attributes synthesised from the request. */
function stripping(doc: DynamoDBDocumentClient, claim: boolean, complete: boolean): DynamoDBDocumentClient {
  const send = async (command: unknown) => {
    if (command instanceof UpdateCommand && command.input.ReturnValues === 'ALL_NEW') {
      const input = command.input;
      const isClaim = (input.ConditionExpression ?? '').includes('attribute_not_exists');
      if ((isClaim && claim) || (!isClaim && complete)) {
        const { ReturnValues: _drop, ...rest } = input;
        const out = await doc.send(new UpdateCommand(rest));
        const v = input.ExpressionAttributeValues ?? {};
        const Attributes = {
          id: input.Key?.['id'],
          status: isClaim ? v[':inProgress'] : v[':completed'],
          expiresAt: v[':expiresAt'],
          attempts: 1,
        };
        return { ...out, Attributes };
      }
    }
    return (doc.send as (c: unknown) => Promise<unknown>)(command);
  };
  return new Proxy(doc, { get: (t, p) => (p === 'send' ? send : Reflect.get(t, p)) });
}

function build(spec: VariantSpec, endpoint: string, tables: BenchTables): Built {
  const rtt = new Map<string, number[]>();
  const phases = { claim: [] as number[], handler: [] as number[], finish: [] as number[] };
  const { client, doc } = makeClient(endpoint, spec.http, rtt);
  const close = () => client.destroy();
  if (spec.side === 'ours') {
    const storeClient = spec.stripClaimRV || spec.stripCompleteRV ? stripping(doc, !!spec.stripClaimRV, !!spec.stripCompleteRV) : doc;
    const store = new DynamoDBIdempotencyStore({ client: storeClient, tableName: tables.ours });
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    const outer: MiddlewareObj<SQSEvent, SQSBatchResponse> = {
      before: () => {
        t0 = performance.now();
      },
      after: () => {
        const t3 = performance.now();
        phases.claim.push(t1 - t0);
        phases.handler.push(t2 - t1);
        phases.finish.push(t3 - t2);
      },
    };
    const inner: MiddlewareObj<SQSEvent, SQSBatchResponse> = {
      before: () => {
        t1 = performance.now();
      },
      after: () => {
        t2 = performance.now();
      },
    };
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(outer)
      .use(
        sqsIdempotency({
          store,
          consumer: 'bench',
          key: (r) => jsonBody<Order>(r).orderNo,
          strategy: spec.tx ? 'transaction' : 'claim',
          logger: spec.noLogger ? false : () => {},
          ...(spec.noPayload ? { payload: false as const } : {}),
        }),
      )
      .use(inner)
      .handler(
        eachRecord(
          async (record, { tx }) => {
            const order = jsonBody<Order>(record);
            if (spec.tx) tx.put({ TableName: tables.business, Item: businessItem(order) });
          },
          spec.concurrency === undefined ? {} : { concurrency: spec.concurrency },
        ),
      );
    return { handler, rtt, phases, close };
  }
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: tables.powertools, awsSdkV3Client: client });
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).orderNo' });
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord): Promise<void> => {
    const order = JSON.parse(record.body) as Order;
    if (spec.tx) await doc.send(new PutCommand({ TableName: tables.business, Item: businessItem(order) }));
  };
  const processIdempotently = makeIdempotent(recordHandler, { persistenceStore, config });
  const handler = middy<SQSEvent, SQSBatchResponse>().handler(async (event: SQSEvent, context: Context) => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, processIdempotently, processor, {
      context,
      ...(spec.sequential ? { processInParallel: false } : {}),
    });
  });
  return { handler, rtt, phases, close };
}

interface Row {
  name: string;
  lat: number[];
  cpu: number;
  records: number;
  failures: number;
  built: Built;
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');
const mean = (a: readonly number[]) => a.reduce((s, x) => s + x, 0) / a.length;

async function runVariants(title: string, specs: readonly VariantSpec[], rounds: number, warmup: number, batch: number, endpoint: string, tables: BenchTables) {
  const rows: Row[] = specs.map((s) => ({ name: s.name, lat: [], cpu: 0, records: 0, failures: 0, built: build(s, endpoint, tables) }));
  const sources = rows.map(() => new KeySource());
  for (let round = 0; round < warmup + rounds; round++) {
    // Rotate the order every round so no variant always goes first.
    for (let j = 0; j < rows.length; j++) {
      const i = (round + j) % rows.length;
      const row = rows[i] as Row;
      const src = sources[i] as KeySource;
      const keys = Array.from({ length: batch }, () => src.next());
      const event = orderEvent(keys);
      const ctx = lambdaContext({ functionName: 'bench', timeoutMs: 60_000 });
      if (round === warmup) {
        row.built.rtt.clear();
        for (const k of Object.keys(row.built.phases)) (row.built.phases as Record<string, number[]>)[k] = [];
      }
      const cpu = process.cpuUsage();
      const t = performance.now();
      let failures = 0;
      try {
        failures = (await row.built.handler(event, ctx)).batchItemFailures.length;
      } catch {
        failures = batch;
      }
      const ms = performance.now() - t;
      const used = process.cpuUsage(cpu);
      if (round >= warmup) {
        row.lat.push(ms);
        row.cpu += (used.user + used.system) / 1000;
        row.records += batch;
        row.failures += failures;
      }
    }
  }
  for (const r of rows) r.built.close();
  const base = rows[0] as Row;
  const baseRate = (base.records * 1000) / base.lat.reduce((s, x) => s + x, 0);
  console.log(`\n## ${title} (batch ${batch}, ${rounds} rounds + ${warmup} warm-up, interleaved)`);
  console.log('variant'.padEnd(34) + 'p50'.padStart(7) + 'p95'.padStart(7) + 'mean'.padStart(7) + 'rec/s'.padStart(7) + ' vs1st'.padStart(7) + 'CPU'.padStart(6) + '  fail  phases claim|handler|finish (p50)  RTT p50 by command');
  for (const r of rows) {
    const rate = (r.records * 1000) / r.lat.reduce((s, x) => s + x, 0);
    const p = r.built.phases;
    const phases = p.claim.length > 0 ? `${fmt(percentile(p.claim, 50))}|${fmt(percentile(p.handler, 50))}|${fmt(percentile(p.finish, 50))}` : '-';
    const rtt = [...r.built.rtt.entries()].map(([k, v]) => `${k} ${fmt(percentile(v, 50))} (n=${(v.length / r.lat.length).toFixed(0)}/b)`).join(', ');
    console.log(
      r.name.padEnd(34) +
        fmt(percentile(r.lat, 50)).padStart(7) +
        fmt(percentile(r.lat, 95)).padStart(7) +
        fmt(mean(r.lat)).padStart(7) +
        fmt(rate, 0).padStart(7) +
        `${fmt(rate / baseRate, 2)}x`.padStart(7) +
        fmt(r.cpu / r.lat.length).padStart(6) +
        String(r.failures).padStart(6) +
        `  ${phases}`.padEnd(36) +
        rtt,
    );
  }
}

const PT: VariantSpec = { name: 'powertools', side: 'powertools', tx: false };
const OURS: VariantSpec = { name: 'ours (conc 8)', side: 'ours', tx: false };

const experiments: Record<string, (tx: boolean) => VariantSpec[]> = {
  conc: (tx) => [
    { ...PT, tx },
    { ...OURS, tx },
    { name: 'ours conc 10', side: 'ours', tx, concurrency: 10 },
    { name: 'ours conc 16', side: 'ours', tx, concurrency: 16 },
  ],
  rv: (tx) => [
    { ...PT, tx },
    { ...OURS, tx },
    { name: 'ours claim without RV', side: 'ours', tx, stripClaimRV: true },
    { name: 'ours claim+complete without RV', side: 'ours', tx, stripClaimRV: true, stripCompleteRV: true },
    { name: 'ours conc10 + no RV', side: 'ours', tx, concurrency: 10, stripClaimRV: true, stripCompleteRV: true },
  ],
  http: (tx) => {
    const out: VariantSpec[] = [];
    const settings: Array<[string, HttpSettings | undefined]> = [
      ['SDK default (KA, 50)', undefined],
      ['KA off', { keepAlive: false, maxSockets: 50 }],
      ['KA, maxSockets 10', { keepAlive: true, maxSockets: 10 }],
      ['KA, maxSockets 4', { keepAlive: true, maxSockets: 4 }],
    ];
    for (const [label, http] of settings) {
      out.push({ name: `PT   ${label}`, side: 'powertools', tx, ...(http ? { http } : {}) });
      out.push({ name: `ours ${label}`, side: 'ours', tx, ...(http ? { http } : {}) });
    }
    return out;
  },
  misc: (tx) => [
    { ...PT, tx },
    { ...OURS, tx },
    { name: 'ours payload:false', side: 'ours', tx, noPayload: true },
    { name: 'ours logger:false', side: 'ours', tx, noLogger: true },
    { name: 'PT sequential', side: 'powertools', tx, sequential: true },
    { name: 'ours conc 1', side: 'ours', tx, concurrency: 1 },
  ],
};

async function main() {
  const [name = 'conc', scenario = 'fresh', roundsArg = '100', batchArg = '10'] = process.argv.slice(2);
  const make = experiments[name];
  if (make === undefined) throw new Error(`unknown experiment ${name}`);
  const { local, tables } = await setUpDynamo();
  try {
    const tx = scenario === 'transaction';
    await runVariants(`${name} / ${scenario}`, make(tx), Number(roundsArg), 15, Number(batchArg), local.endpoint, tables);
  } finally {
    await local.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
