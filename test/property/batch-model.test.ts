/**
 * Model-based test of whole SQS batches through `sqsIdempotency` +
 * `eachRecord` on DynamoDB Local, against the reference model in
 * ./batch-model.ts. Random batches mix: keys repeated within a batch, equal
 * and different bodies, a stored record per key (absent, COMPLETED with the
 * same or another payload, IN_PROGRESS with a live or an expired lease,
 * FAILED, past its retention), FIFO groups or a standard queue, handler
 * failures (plain or a PermanentError) and bad bodies at random positions, both strategies (group or
 * per-record commit, with or without the duplicate probe; claims batched or pipelined), payload checking on or off, results stored or not,
 * `deadLetter` on or off (a scripted DLQ that refuses some entries). Each batch checks:
 * - every record's outcome (kind, not-started reason, error name) in the batch
 *   log line, the records the handler ran and `batchItemFailures`, against the model;
 * - the EMF metrics document: each outcome's count equals the log line's records and counts;
 * - the effects: each key's at most once, and exactly once when a copy completed
 *   (with its result stored when results are);
 * - FIFO: no record of a group runs or completes after an earlier record of
 *   that group that comes back (duplicates already decided are acknowledged
 *   wherever they stand, see fifo-batch.test.ts).
 *
 * `npm test` runs a fixed seed and 40 batches. More on demand:
 *   MODEL_RUNS=500 MODEL_SEED=7 npx vitest run test/property/batch-model.test.ts
 */
import fc from 'fast-check';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { badBodyArb } from './arbitraries.js';
import { payloadHash } from '../../src/engine/hashing.js';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBIdempotencyStore, PermanentError, claim, deadLetter, emfMetrics, transaction } from '../../src/index.js';
import { outcomeMetricNames, type EmfDocument } from '../../src/observe/emf.js';
import type { EitherRecordHandler } from '../support/strategy.js';
import { sqsDefaults } from '../../src/sources/sqs/middleware.js';
import { ManualClock, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { failedIds, harness, type Harness } from '../integration/sqs/harness.js';
import { keyInTwoGroups, model, winnerChoices, type Expected, type Live, type PlannedRecord, type Strategy } from './batch-model.js';
import { SEED } from './seed.js';

const envInt = (name: string): number | undefined => {
  const n = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isInteger(n) ? n : undefined;
};
const RUNS = envInt('MODEL_RUNS') ?? 40;
const MODEL_SEED = envInt('MODEL_SEED') ?? SEED;

const STATES = ['absent', 'completed-1', 'completed-2', 'in-progress-1', 'in-progress-2', 'expired', 'failed', 'past-retention'] as const;
type SeedState = (typeof STATES)[number];
const KEYS = 3;

interface Case {
  readonly strategy: Strategy;
  /** Claim strategy: claims pipelined (each record starts when its own claim returns); the model is the same. */
  readonly pipelined: boolean;
  readonly fifo: boolean;
  readonly payloadCheck: boolean;
  readonly storeResult: boolean;
  readonly concurrency: number;
  /** Transaction strategy: group commit (the default) or one commit per record; the model is the same. */
  readonly commit: 'group' | 'record';
  /** Group commit: the duplicate probe (`probeDuplicates`); the model is the same with or without it. */
  readonly probe: 'auto' | 'always' | 'never';
  /** `deadLetter` with a scripted SQS client as the DLQ. */
  readonly dlq: boolean;
  readonly states: readonly SeedState[];
  readonly records: ReadonlyArray<{
    key: number;
    v: number;
    group: string;
    fails: boolean;
    permanent: boolean;
    dlqRefuses: boolean;
    bad: 'nojson' | 'nokey' | undefined;
    respelled: boolean;
  }>;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  strategy: fc.constantFrom<Strategy>('claim', 'transaction'),
  pipelined: fc.boolean(),
  fifo: fc.boolean(),
  payloadCheck: fc.oneof(fc.constant(true), fc.constant(true), fc.constant(false)),
  storeResult: fc.boolean(),
  concurrency: fc.integer({ min: 1, max: 3 }),
  commit: fc.constantFrom<'group' | 'record'>('group', 'group', 'record'),
  probe: fc.constantFrom<'auto' | 'always' | 'never'>('auto', 'always', 'always', 'never'),
  dlq: fc.boolean(),
  states: fc.array(fc.constantFrom(...STATES), { minLength: KEYS, maxLength: KEYS }),
  records: fc.array(
    fc.record({
      key: fc.integer({ min: 0, max: KEYS - 1 }),
      v: fc.integer({ min: 1, max: 2 }),
      group: fc.constantFrom('A', 'B'),
      fails: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      permanent: fc.boolean(),
      dlqRefuses: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      bad: badBodyArb,
      // The same JSON value re-serialised by the producer (other key order, spacing): the same payload.
      respelled: fc.boolean(),
    }),
    { minLength: 1, maxLength: 8 },
  ),
});

const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:model.fifo';
const bodyOf = (key: string, v: number): string => JSON.stringify({ orderNo: key, v });
const respelledBodyOf = (key: string, v: number): string => `{ "v" : ${v},\n  "orderNo": ${JSON.stringify(key)} }`;

function recordOf(p: PlannedRecord, respelled = false): SQSRecord {
  const good = respelled ? respelledBodyOf(p.key, p.v) : bodyOf(p.key, p.v);
  const body = p.bad === 'nojson' ? '{not json' : p.bad === 'nokey' ? JSON.stringify({ v: p.v }) : good;
  return sqsRecord({ body, ...(p.group === undefined ? {} : { queueArn: FIFO_ARN, groupId: p.group }) });
}

/** The payload hash the middleware computes for a body by default (whatever the default payload is). */
function defaultHash(key: string, v: number): string {
  const payload = sqsDefaults.payload;
  if (payload === false) throw new Error('payload checking is on by default');
  return payloadHash(payload(sqsRecord({ body: bodyOf(key, v) })));
}

const HOUR = 3_600_000;

/** Stores at other times, to write records whose lease or retention has passed, through the store's own API. */
function seeders(h: Harness) {
  const at = (offset: number) =>
    new DynamoDBIdempotencyStore({
      client: h.doc,
      tableName: h.table,
      clock: new ManualClock(h.clock.now() + offset),
      release: 'mark-failed',
    });
  return { now: at(0), hourAgo: at(-HOUR), twoDaysAgo: at(-48 * HOUR) };
}

/** Writes the stored record of `key`; returns what a claim or commit will find. */
async function seed(s: ReturnType<typeof seeders>, key: string, state: SeedState): Promise<Live> {
  const claim = async (store: DynamoDBIdempotencyStore, v: number, leaseMs: number) => {
    const c = await store.claim({ consumer: 'test', key, leaseMs, payloadHash: defaultHash(key, v), messageId: 'seed' });
    if (c.kind !== 'claimed') throw new Error(`seeding ${key}: ${c.kind}`);
    return c;
  };
  switch (state) {
    case 'absent':
      return undefined;
    case 'completed-1':
    case 'completed-2': {
      const v = state === 'completed-1' ? 1 : 2;
      const c = await claim(s.now, v, 60_000);
      await s.now.complete({ id: c.id, token: c.token, result: 'seeded', storeResult: true });
      return { status: 'COMPLETED', hash: v };
    }
    case 'in-progress-1':
    case 'in-progress-2': {
      const v = state === 'in-progress-1' ? 1 : 2;
      await claim(s.now, v, 10 * 60_000); // another invocation, well within its lease
      return { status: 'IN_PROGRESS', hash: v };
    }
    case 'expired':
      await claim(s.hourAgo, 1, 60_000); // a crashed consumer: lease ended 59 minutes ago
      return undefined;
    case 'failed': {
      const c = await claim(s.now, 1, 60_000);
      await s.now.release({ id: c.id, token: c.token, error: new Error('earlier failure') });
      return undefined;
    }
    case 'past-retention': {
      const c = await claim(s.twoDaysAgo, 1, 60_000);
      await s.twoDaysAgo.complete({ id: c.id, token: c.token });
      return undefined;
    }
  }
}

/** A DLQ client that takes every entry but those of the refused message ids (read from the entry's `eo-message-id`). */
function scriptedDlq(refused: ReadonlySet<string>): SQSClient {
  type Entry = { Id: string; MessageAttributes?: Record<string, { StringValue?: string }> };
  const send = async (command: { input: { Entries?: Entry[] } }) => {
    const entries = command.input.Entries ?? [];
    const refuses = (e: Entry) => refused.has(e.MessageAttributes?.['eo-message-id']?.StringValue ?? '');
    return {
      Successful: entries.filter((e) => !refuses(e)).map((e) => ({ Id: e.Id, MessageId: `dlq-${e.Id}`, MD5OfMessageBody: '' })),
      Failed: entries.filter(refuses).map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
    };
  };
  return { send } as unknown as SQSClient;
}

let run = 0;
// One idempotency table and one business table for every batch: keys are unique per batch.
const setup = (async () => {
  const h = await harness();
  const business = await freshTable(testDynamo().client, businessTable, 'model');
  return { h, business, seeders: seeders(h) };
})();

async function runCase(c: Case) {
  const { h, business, seeders: s } = await setup;
  run += 1;
  const keys = Array.from({ length: KEYS }, (_, k) => `m${run}-k${k}`);
  const plan: PlannedRecord[] = c.records.map((r) => ({
    key: keys[r.key] as string,
    v: r.v,
    group: c.fifo ? r.group : undefined,
    fails: r.fails,
    permanent: r.permanent,
    dlqRefuses: r.dlqRefuses,
    ...(r.bad === undefined ? {} : { bad: r.bad }),
  }));
  const stored = new Map<string, Live>();
  for (const [k, key] of keys.entries()) stored.set(key, await seed(s, key, c.states[k] ?? 'absent'));
  const records = plan.map((p, i) => recordOf(p, c.records[i]?.respelled === true));
  const indexOf = new Map(records.map((r, i) => [r.messageId, i]));
  const calls: number[] = [];
  const fn: EitherRecordHandler = async (record, { key, tx }) => {
    const i = indexOf.get(record.messageId) ?? -1;
    calls.push(i);
    if (plan[i]?.fails === true) throw plan[i]?.permanent === true ? new PermanentError('planned') : new Error('planned failure');
    const effect = { TableName: business, Key: { pk: key }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } };
    if (tx !== undefined) tx.update(effect);
    else await h.doc.send(new UpdateCommand(effect));
    return `res:${record.messageId}`;
  };
  // Commits of one key from two groups race when lanes run side by side: keep those batches to one lane at a time.
  const concurrency = c.strategy === 'transaction' && keyInTwoGroups(plan) ? 1 : c.concurrency;
  const options = {
    strategy:
      c.strategy === 'transaction' ? transaction({ commit: c.commit, probeDuplicates: c.probe }) : claim({ pipelined: c.pipelined }),
    storeResult: c.storeResult,
    ...(c.payloadCheck ? {} : { payload: false as const }),
    ...(c.dlq
      ? {
          deadLetter: deadLetter({
            sqs: scriptedDlq(new Set(records.filter((_, i) => plan[i]?.dlqRefuses).map((x) => x.messageId))),
            dlqUrl: `https://sqs.local/model-dlq${c.fifo ? '.fifo' : ''}`,
          }),
        }
      : {}),
    metrics: emfMetrics({ emit: (d: EmfDocument) => docs.push(d) }),
  };
  const docs: EmfDocument[] = [];
  const handler = c.strategy === 'transaction' ? h.txHandler(fn, options, { concurrency }) : h.handler(fn, options, { concurrency });
  const response = await handler(sqsEvent(records), h.context());
  const line = h.lines.at(-1);
  expect(docs, 'one EMF document per batch').toHaveLength(1);
  for (const [kind, name] of Object.entries(outcomeMetricNames)) {
    const logged = (line?.records ?? []).filter((x) => x.outcome === kind).length;
    expect(docs[0]?.[name], `metric ${name} = log line records`).toBe(logged);
    expect(line?.counts[kind as keyof typeof outcomeMetricNames], `log counts ${kind}`).toBe(logged);
  }
  expect(docs[0]?.['Records']).toBe(records.length);
  expect(docs[0]?.['RecordsRetried']).toBe(failedIds(response).length);
  const observed = (line?.records ?? []).map(
    (r): Expected => ({
      outcome: r.outcome,
      ...(r.reason === undefined ? {} : { reason: r.reason }),
      ...(r.error === undefined ? {} : { error: r.error.name }),
    }),
  );
  return { h, business, keys, plan, stored, records, calls, observed, failed: failedIds(response) };
}

type Ran = Awaited<ReturnType<typeof runCase>>;

/** The model's prediction that matches (DynamoDB picks the winning claim of a key led in two groups), or the first. */
function prediction(c: Case, r: Ran) {
  const predictions = winnerChoices(c.strategy, r.plan, r.stored).map((winners) =>
    model({ strategy: c.strategy, records: r.plan, stored: r.stored, payloadCheck: c.payloadCheck, winners, dlq: c.dlq }),
  );
  return predictions.find((p) => JSON.stringify(p.outcomes) === JSON.stringify(r.observed)) ?? predictions[0];
}

/** FIFO: per group, nothing after the first record that comes back ran or completed. */
function checkFifoOrder(r: Ran, acknowledged: (i: number) => boolean): void {
  for (const group of new Set(r.plan.map((p) => p.group))) {
    if (group === undefined) continue;
    const members = r.plan.flatMap((p, i) => (p.group === group ? [i] : []));
    const cut = members.find((i) => !acknowledged(i)) ?? Infinity;
    const ranHere = r.calls.filter((i) => r.plan[i]?.group === group);
    expect(ranHere, `group ${group}: the handler ran its records in order`).toEqual([...ranHere].sort((a, b) => a - b));
    for (const i of members.filter((m) => m > cut)) {
      expect(r.calls.includes(i), `group ${group}: record ${i} ran after record ${cut}, which comes back`).toBe(false);
      expect(r.observed[i]?.outcome, `group ${group}: record ${i} behind ${cut}`).not.toBe('completed');
    }
  }
}

async function checkEffects(c: Case, r: Ran, completedBy: ReadonlyMap<string, number>): Promise<void> {
  for (const key of r.keys) {
    const item = await r.h.doc.send(new GetCommand({ TableName: r.business, Key: { pk: key }, ConsistentRead: true }));
    const applied = (item.Item?.['n'] as number | undefined) ?? 0;
    const completed = r.plan.filter((p, i) => p.key === key && r.observed[i]?.outcome === 'completed').length;
    expect(completed, `copies of ${key} completed`).toBeLessThanOrEqual(1);
    expect(applied, `effects of ${key}`).toBe(completed);
    expect(applied, `effects of ${key} (model)`).toBe(completedBy.has(key) ? 1 : 0);
    const by = completedBy.get(key);
    if (by === undefined || !c.storeResult) continue;
    const stored = await r.h.store.get(r.h.store.recordId('test', key));
    expect(stored?.result, `result stored for ${key}`).toBe(`res:${r.records[by]?.messageId}`);
  }
}

describe('SQS batches against the reference model', () => {
  it(
    `every record's outcome, the handler's runs, batchItemFailures, effects and FIFO order (${RUNS} batches, seed ${MODEL_SEED})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const r = await runCase(c);
          const p = prediction(c, r);
          if (p === undefined) throw new Error('no prediction');
          expect(r.observed, JSON.stringify({ c, plan: r.plan.map((x) => ({ ...x, key: x.key.split('-')[1] })) })).toEqual(p.outcomes);
          expect(
            [...r.calls].sort((a, b) => a - b),
            'records the handler ran',
          ).toEqual([...p.ran].sort((a, b) => a - b));
          const ack = (i: number) => ['completed', 'duplicate', 'dead-lettered'].includes(r.observed[i]?.outcome ?? '');
          expect(r.failed).toEqual(r.records.filter((_, i) => !ack(i)).map((x) => x.messageId));
          checkFifoOrder(r, ack);
          await checkEffects(c, r, p.completedBy);
        }),
        { seed: MODEL_SEED, numRuns: RUNS },
      );
    },
    30_000 + RUNS * 2_000,
  );
});
