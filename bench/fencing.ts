/**
 * Correctness comparison (printed, never asserted): a lease takeover.
 *
 * A claims a key and stalls past its lease; B (a re-delivery) takes the key
 * over and is still running when A finishes late, by succeeding or by
 * failing. Then C re-delivers the key while B still runs. What we look at:
 * does A's late write change B's record, and does C run the effect while B
 * is still running? Both sides get the same short lease: ours from a 400 ms
 * remaining time with no margin, Powertools from the same remaining time
 * (its in-progress expiry is "now + remaining time").
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/dynamodb-local.js';
import { createTable, tableDefinitions } from '../infra/tables.js';
import { claim } from '../src/index.js';
import { Deferred, delay, lambdaContext, sqsEvent, sqsRecord } from '../src/testing/index.js';
import { oursHandler, powertoolsHandler, type BatchHandler } from './contenders.js';
import { countedClient, powertoolsTableDefinition, type CountedClient } from './dynamo.js';

/** The two sides compared. */
export type Side = 'ours' | 'powertools';

/** How A finishes after losing its lease. */
export type FencingVariant = 'late-success' | 'late-failure';

/** What one side did in one variant, in words. */
export interface FencingResult {
  readonly variant: FencingVariant;
  readonly side: Side;
  readonly recordBeforeA: string;
  readonly aWrite: string;
  readonly aOutcome: string;
  readonly cOutcome: string;
  readonly cRan: boolean;
  readonly executions: number;
  readonly finalRecord: string;
}

const LEASE_MS = 400;
/** How long A stalls beyond its lease before B arrives. */
const PAST_LEASE_MS = 300;

type Item = Record<string, unknown> | undefined;

/** One gated delivery: the handler signals `started` and waits for `release`. */
interface Gate {
  readonly label: string;
  readonly started: Deferred;
  readonly release: Deferred;
  readonly fail: boolean;
}

class Scene {
  readonly gates = new Map<string, Gate>();
  readonly ran: string[] = [];

  readonly work = async (messageId: string): Promise<void> => {
    const gate = this.gates.get(messageId);
    this.ran.push(gate?.label ?? 'C');
    if (gate === undefined) return;
    gate.started.resolve();
    await gate.release.promise;
    if (gate.fail) throw new Error(`${gate.label} failed late`);
  };

  /** A batch of one delivery of `key`, gated under `label` unless `label` is undefined. */
  delivery(key: string, label?: string, fail = false): { event: SQSEvent; gate?: Gate } {
    const record = sqsRecord({ body: { orderNo: key, customerId: 'c-1', amount: 100 } });
    if (label === undefined) return { event: sqsEvent([record]) };
    const gate: Gate = { label, started: new Deferred(), release: new Deferred(), fail };
    this.gates.set(record.messageId, gate);
    return { event: sqsEvent([record]), gate };
  }
}

/** Resolves to the number of records reported failed; a thrown batch (Powertools, all failed) counts as all. */
async function call(handler: BatchHandler, event: SQSEvent, ctx: Context): Promise<number> {
  try {
    return (await handler(event, ctx)).batchItemFailures.length;
  } catch {
    return event.Records.length;
  }
}

async function onlyItem(counted: CountedClient, tableName: string): Promise<Item> {
  const out = await counted.doc.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
  return out.Items?.[0];
}

function describe(item: Item): string {
  if (item === undefined) return 'absent';
  const owner = typeof item['owner'] === 'string' ? ` owner=${item['owner'].slice(0, 8)}` : '';
  return `status=${String(item['status'])}${owner}`;
}

/** Attribute order in a response is not part of an item: compare sorted. */
function sameItem(a: Item, b: Item): boolean {
  const canonical = (item: Item) => JSON.stringify(item === undefined ? null : Object.entries(item).sort(([x], [y]) => x.localeCompare(y)));
  return canonical(a) === canonical(b);
}

function lateWrite(before: Item, after: Item): string {
  if (before !== undefined && after === undefined) return "deleted B's record";
  if (sameItem(before, after)) return "refused; B's record unchanged";
  return `overwrote B's record (${describe(before)} -> ${describe(after)})`;
}

function cWords(ran: boolean, failures: number): string {
  if (ran) return `ran the effect while B was still running (${failures === 0 ? 'acknowledged' : 'reported for retry'})`;
  return failures === 0 ? 'not run; acknowledged as a duplicate' : 'not run; reported for retry (key still in progress)';
}

async function freshTable(endpoint: string, side: Side): Promise<string> {
  const admin = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  const name = `bench-fencing-${side}-${randomUUID().slice(0, 8)}`;
  try {
    await createTable(admin, name, side === 'ours' ? tableDefinitions.idempotency : powertoolsTableDefinition);
  } finally {
    admin.destroy();
  }
  return name;
}

/** A contender with the short lease, on a table of its own (so its one record can be read back by scanning). */
async function prepare(
  endpoint: string,
  side: Side,
  scene: Scene,
): Promise<{ handler: BatchHandler; counted: CountedClient; tableName: string }> {
  const tableName = await freshTable(endpoint, side);
  const counted = countedClient(endpoint);
  const handler =
    side === 'ours'
      ? oursHandler({
          counted,
          tableName,
          strategy: claim(),
          effect: (_event, ctx) => scene.work(ctx.messageId),
          // Same short lease on both sides: the remaining time, no margin (Powertools' in-progress expiry is exactly that).
          lease: { marginMs: 0, floorMs: 0 },
          safetyMarginMs: 0,
          timeoutEarly: false,
        })
      : powertoolsHandler({ counted, tableName, effect: (_event, messageId) => scene.work(messageId), timeoutEarly: false });
  return { handler, counted, tableName };
}

/** Runs one variant on one side. */
async function takeover(endpoint: string, side: Side, variant: FencingVariant): Promise<FencingResult> {
  const scene = new Scene();
  const { handler, counted, tableName } = await prepare(endpoint, side, scene);
  const key = `fence-${variant}`;
  const long = () => lambdaContext({ functionName: 'bench', timeoutMs: 60_000 });
  try {
    const a = scene.delivery(key, 'A', variant === 'late-failure');
    const pA = call(handler, a.event, lambdaContext({ functionName: 'bench', timeoutMs: LEASE_MS }));
    await Promise.race([a.gate?.started.promise, pA]);
    await delay(LEASE_MS + PAST_LEASE_MS);
    const b = scene.delivery(key, 'B');
    const pB = call(handler, b.event, long());
    await Promise.race([b.gate?.started.promise, pB]);
    const before = await onlyItem(counted, tableName);
    a.gate?.release.resolve();
    const aFailures = await pA;
    const afterA = await onlyItem(counted, tableName);
    const cFailures = await call(handler, scene.delivery(key).event, long());
    const cRan = scene.ran.includes('C');
    b.gate?.release.resolve();
    await pB;
    return {
      variant,
      side,
      recordBeforeA: `${describe(before)} (${scene.ran.includes('B') ? "B's claim" : 'B did not take over'})`,
      aWrite: lateWrite(before, afterA),
      aOutcome: aFailures === 0 ? 'acknowledged' : 'reported for retry',
      cOutcome: cWords(cRan, cFailures),
      cRan,
      executions: scene.ran.length,
      finalRecord: describe(await onlyItem(counted, tableName)),
    };
  } finally {
    counted.client.destroy();
  }
}

/** Both variants, both sides. */
export async function runFencing(endpoint: string, progress: (line: string) => void): Promise<FencingResult[]> {
  const results: FencingResult[] = [];
  for (const variant of ['late-success', 'late-failure'] as const) {
    for (const side of ['ours', 'powertools'] as const) {
      progress(`correctness: ${variant} (${side})`);
      results.push(await takeover(endpoint, side, variant));
    }
  }
  return results;
}
