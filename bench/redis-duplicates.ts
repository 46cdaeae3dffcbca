/**
 * `npm run bench:redis`: what a duplicate delivery costs in DynamoDB requests
 * with DynamoDB alone, with `withRedisFilter` in front of it, and with the
 * Redis store alone; and what each does once Redis has lost its data.
 *
 * Per variant, through the SQS middleware (claim strategy, no-op effect):
 * 1. fresh: every event once;
 * 2. hot duplicates: every event `--dups` more times, under new message ids, in later batches;
 * 3. after FLUSHALL: every event once more (Redis forgot everything).
 *
 * Counts, not timings, are the point (they do not depend on the machine);
 * mean milliseconds per batch are printed too, with `--latency` added to
 * every DynamoDB request as a region's round trip would.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createClient } from 'redis';
import { startDynamoDBLocal } from '../infra/dynamodb-local.js';
import { startRedisLocal } from '../infra/redis-local.js';
import {
  DynamoDBIdempotencyStore,
  RedisIdempotencyStore,
  eachRecord,
  jsonBody,
  sqsIdempotency,
  withRedisFilter,
  type IdempotencyStore,
} from '../src/index.js';
import type { RedisConnection } from '../src/stores/redis/connection.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../src/testing/index.js';
import { countedClient, createVariantTables, type CountedClient } from './dynamo.js';
import { markdownTable } from './format.js';
import { mergeSection } from './sections.js';

interface Options {
  readonly events: number;
  readonly dups: number;
  readonly batch: number;
  readonly latencyMs: number;
  readonly docs: string | undefined;
}

/** Cost of one phase, per delivery. */
interface PhaseCost {
  readonly dynamoPerDelivery: number;
  readonly redisPerDelivery: number;
  readonly msPerBatch: number;
  /** Effects the phase ran (a duplicate should run none). */
  readonly effects: number;
}

interface VariantCost {
  readonly name: string;
  readonly fresh: PhaseCost;
  readonly hot: PhaseCost;
  readonly afterFlush: PhaseCost;
}

type VariantName = 'DynamoDB alone' | 'DynamoDB + withRedisFilter' | 'RedisIdempotencyStore alone';
const VARIANTS: readonly VariantName[] = ['DynamoDB alone', 'DynamoDB + withRedisFilter', 'RedisIdempotencyStore alone'];

function parse(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      events: { type: 'string', default: '300' },
      dups: { type: 'string', default: '3' },
      batch: { type: 'string', default: '10' },
      latency: { type: 'string', default: '0' },
      docs: { type: 'string', default: 'docs/benchmarks.md' },
      'no-docs': { type: 'boolean', default: false },
    },
  });
  const int = (name: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new TypeError(`--${name} must be an integer >= ${min}, got "${text}".`);
    return n;
  };
  return {
    events: int('events', values.events, 1),
    dups: int('dups', values.dups, 1),
    batch: int('batch', values.batch, 1),
    latencyMs: int('latency', values.latency, 0),
    docs: values['no-docs'] ? undefined : values.docs,
  };
}

/** A connection that counts the commands sent through it. */
function counting(send: (args: string[]) => Promise<unknown>): RedisConnection & { taken(): number } {
  let sent = 0;
  return {
    sendCommand: (args) => {
      sent += 1;
      return send([...args]);
    },
    taken: () => {
      const n = sent;
      sent = 0;
      return n;
    },
  };
}

async function storeFor(
  name: VariantName,
  counted: CountedClient,
  table: string,
  redis: RedisConnection,
  prefix: string,
): Promise<IdempotencyStore> {
  const dynamo = new DynamoDBIdempotencyStore({ client: counted.doc, tableName: table });
  if (name === 'DynamoDB alone') return dynamo;
  if (name === 'DynamoDB + withRedisFilter') return withRedisFilter(dynamo, { redis, keyPrefix: prefix });
  return new RedisIdempotencyStore({ redis, keyPrefix: prefix });
}

/** Delivers every key `copies` times (copy by copy, in batches), and measures. */
async function phase(
  handler: (event: SQSEvent) => Promise<SQSBatchResponse>,
  keys: readonly string[],
  copies: number,
  batch: number,
  meters: { dynamo: () => number; redis: () => number; effects: () => number },
): Promise<PhaseCost> {
  meters.dynamo();
  meters.redis();
  meters.effects();
  let batches = 0;
  const started = performance.now();
  for (let copy = 0; copy < copies; copy++) {
    for (let i = 0; i < keys.length; i += batch) {
      const records = keys.slice(i, i + batch).map((orderNo) => sqsRecord({ body: JSON.stringify({ orderNo }) }));
      const response = await handler(sqsEvent(records));
      if (response.batchItemFailures.length > 0) throw new Error(`${response.batchItemFailures.length} records failed`);
      batches += 1;
    }
  }
  const ms = performance.now() - started;
  const deliveries = keys.length * copies;
  return {
    dynamoPerDelivery: meters.dynamo() / deliveries,
    redisPerDelivery: meters.redis() / deliveries,
    msPerBatch: ms / batches,
    effects: meters.effects(),
  };
}

async function runVariant(name: VariantName, options: Options, endpoint: string, redisUrl: string): Promise<VariantCost> {
  const slug = name.replace(/[^a-z]+/gi, '-').toLowerCase();
  const tables = await createVariantTables(endpoint, `bench-redis-${Date.now().toString(36)}-${slug}`, {
    idempotency: 'ours',
    business: 'points',
  });
  const counted = countedClient(endpoint, { latencyMs: options.latencyMs, units: false });
  const client = createClient({ url: redisUrl, disableOfflineQueue: true });
  await client.connect();
  try {
    const redis = counting((args) => client.sendCommand(args));
    const store = await storeFor(name, counted, tables.idempotency ?? '', redis, `${slug}:`);
    let effects = 0;
    const context = lambdaContext({ functionName: 'bench-redis', timeoutMs: 60_000 });
    const mw = middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ store, consumer: 'orders', key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo, logger: false }))
      .handler(eachRecord(() => void (effects += 1)));
    const handler = (event: SQSEvent) => mw(event, context);
    const keys = Array.from({ length: options.events }, (_, i) => `o-${i}`);
    const meters = {
      dynamo: () => Object.values(counted.counter.take().requests).reduce((a, b) => a + b, 0),
      redis: () => redis.taken(),
      effects: () => {
        const ran = effects;
        effects = 0;
        return ran;
      },
    };
    // Warm-up on keys of its own (not measured), so no variant pays for the JIT or a first connection.
    await phase(
      handler,
      Array.from({ length: 5 * options.batch }, (_, i) => `w-${i}`),
      2,
      options.batch,
      meters,
    );
    const fresh = await phase(handler, keys, 1, options.batch, meters);
    const hot = await phase(handler, keys, options.dups, options.batch, meters);
    await client.flushAll();
    const afterFlush = await phase(handler, keys, 1, options.batch, meters);
    return { name, fresh, hot, afterFlush };
  } finally {
    client.destroy();
    counted.client.destroy();
  }
}

function fixed(n: number, digits = 2): string {
  return n.toFixed(digits);
}

function table(results: readonly VariantCost[], options: Options): string[] {
  const rows = results.map((r) => [
    r.name,
    `${fixed(r.fresh.dynamoPerDelivery)} / ${fixed(r.fresh.redisPerDelivery)}`,
    `${fixed(r.hot.dynamoPerDelivery)} / ${fixed(r.hot.redisPerDelivery)}`,
    `${fixed(r.afterFlush.dynamoPerDelivery)} / ${fixed(r.afterFlush.redisPerDelivery)}`,
    String(r.afterFlush.effects),
    `${fixed(r.fresh.msPerBatch, 1)} / ${fixed(r.hot.msPerBatch, 1)}`,
  ]);
  const head = [
    'store',
    'fresh: DynamoDB / Redis per delivery',
    'hot duplicate: DynamoDB / Redis',
    'duplicate after FLUSHALL: DynamoDB / Redis',
    `effects re-run after FLUSHALL (of ${options.events})`,
    `ms per batch of ${options.batch}: fresh / duplicates`,
  ];
  return markdownTable(head, rows);
}

/** One section per added latency, as `npm run bench` does. */
function sectionKey(options: Options): string {
  return `redis-latency-${options.latencyMs}`;
}

function section(results: readonly VariantCost[], options: Options): string {
  return [
    `<!-- bench:begin ${sectionKey(options)} -->`,
    `## Redis: DynamoDB requests per duplicate delivery (\`npm run bench:redis${options.latencyMs > 0 ? ` -- --latency ${options.latencyMs}` : ''}\`)`,
    '',
    `${options.events} events through the SQS middleware (claim strategy), then ${options.dups} duplicate deliveries of each (new message ids, later batches), then FLUSHALL and one more of each. DynamoDB Local${options.latencyMs > 0 ? ` + ${options.latencyMs} ms per request` : ''} and redis-server on this machine; requests and commands counted per delivery (the first figures that matter); milliseconds are wall time on a shared machine, only indicative.`,
    '',
    ...table(results, options),
    `<!-- bench:end ${sectionKey(options)} -->`,
  ].join('\n');
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const [dynamo, redis] = await Promise.all([startDynamoDBLocal(), startRedisLocal()]);
  try {
    const results: VariantCost[] = [];
    for (const name of VARIANTS) {
      process.stderr.write(`${name}...\n`);
      results.push(await runVariant(name, options, dynamo.endpoint, redis.url));
    }
    process.stdout.write(`${table(results, options).join('\n')}\n`);
    if (options.docs !== undefined) {
      const existing = existsSync(options.docs) ? readFileSync(options.docs, 'utf8') : '# Benchmarks\n';
      writeFileSync(options.docs, mergeSection(existing, section(results, options), sectionKey(options)));
    }
  } finally {
    await Promise.all([dynamo.stop(), redis.stop()]);
  }
}

await main();
