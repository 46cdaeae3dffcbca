/**
 * The claim strategy's request patterns side by side: the same five batches
 * through `sqsIdempotency` (no `strategy`) at each memory size that picks a
 * pattern, on any store, traced so that the runs can be compared whole:
 * responses, what the handler saw, effects, log outcomes and the table's
 * state after each batch. The unit test runs it on MemoryIdempotencyStore,
 * the integration test on DynamoDB Local.
 *
 * The batches hold fresh keys, a key already completed, a key in progress in
 * another invocation (its lease passes before batch 4), one key twice, a
 * record a filter drops, and a record that fails on its first attempt at a
 * given position; standard or FIFO (two groups); a middleware after ours
 * that copies the event, filters records, or rewrites them in place or by
 * replacing. The records that come back are redelivered at the head of the
 * next batch as SQS sends them: the same message id, `ApproximateReceiveCount`
 * one higher; each batch also brings two fresh keys, batch 3 a producer's
 * re-send of a completed key under a new message id.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { vi } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from '../../src/index.js';
import { payloadHash } from '../../src/engine/hashing.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import { lambdaContext, type ManualClock, sqsEvent, sqsRecord } from '../../src/testing/index.js';

export const CONSUMER = 'patterns';
const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:patterns.fifo';
/** The function's timeout: our claims' lease is about this. */
const TIMEOUT_MS = 60_000;
/** The other invocation's lease on the in-progress key: passed before batch 4. */
const OTHER_LEASE_MS = 10 * 60_000;

/** A way to reach one request pattern from a user's test: the context's memory size, and Lambda Managed Instances' variable. */
export interface Pattern {
  readonly name: string;
  readonly memoryMb: number;
  readonly managedInstances?: true;
  /** What the batch log line's `requests` says. */
  readonly requests: 'batched' | 'per-record';
}

export const PATTERNS: readonly Pattern[] = [
  { name: '128 MB', memoryMb: 128, requests: 'batched' },
  { name: '1,024 MB', memoryMb: 1024, requests: 'per-record' },
  { name: '1,769 MB', memoryMb: 1769, requests: 'per-record' },
  { name: '1,769 MB on Managed Instances', memoryMb: 1769, managedInstances: true, requests: 'batched' },
];

export type Rewrite = 'none' | 'copy' | 'filter' | 'in-place' | 'replace';
export const REWRITES: readonly Rewrite[] = ['none', 'copy', 'filter', 'in-place', 'replace'];

export interface Scenario {
  readonly queue: 'standard' | 'fifo';
  readonly rewrite: Rewrite;
  /** Position in batch 1 of the record that fails on its first attempt. */
  readonly failAt: number;
}

/** Batch 1's keys, in order; `drop` is flagged for the filter. FIFO: the first three in group g1, the rest in g2. */
export const FIRST_BATCH = ['a', 'done', 'busy', 'a', 'b', 'drop'] as const;

/** What one batch did, comparable across patterns. */
export interface BatchTrace {
  readonly failed: readonly string[];
  /** What the handler was handed, sorted: message id, key, whether it saw the rewrite. */
  readonly ran: readonly string[];
  readonly outcomes: Readonly<Record<string, string>>;
  /** Each key's status in the table after the batch (`-` none). */
  readonly table: Readonly<Record<string, string>>;
  /** Records neither returned nor completed (their key not COMPLETED in the table): must be none. */
  readonly unsettled: readonly string[];
}

export interface Run {
  readonly batches: readonly BatchTrace[];
  /** Effects applied, by key. */
  readonly effects: Readonly<Record<string, number>>;
  /** Each batch's `requests` in its log line. */
  readonly requests: readonly (string | undefined)[];
}

const bodyOf = (key: string) => JSON.stringify({ orderNo: key });

function middlewareFor(rewrite: Rewrite): MiddlewareObj<SQSEvent, SQSBatchResponse> | undefined {
  const mark = (r: SQSRecord) => JSON.stringify({ ...JSON.parse(r.body), rewritten: true });
  switch (rewrite) {
    case 'none':
      return undefined;
    case 'copy':
      return { before: (request) => void (request.event = { ...request.event, receivedAt: 1 } as SQSEvent) };
    case 'filter':
      return {
        before: (request) => void (request.event = { Records: request.event.Records.filter((r) => !('drop' in r.messageAttributes)) }),
      };
    case 'in-place':
      return { before: (request) => request.event.Records.forEach((r) => void (r.body = mark(r))) };
    case 'replace':
      return { before: (request) => void (request.event = { Records: request.event.Records.map((r) => ({ ...r, body: mark(r) })) }) };
  }
}

/** Batch `n`'s records: the ones that came back, then its own (batch 1: {@link FIRST_BATCH}). */
function recordsOf(scenario: Scenario, clock: ManualClock, n: number, back: readonly SQSRecord[]): SQSRecord[] {
  const fifo = scenario.queue === 'fifo';
  const make = (key: string, i: number, group: string) =>
    sqsRecord({
      messageId: `b${n}-${i}`,
      body: bodyOf(key),
      clock,
      ...(key === 'drop' ? { messageAttributes: { drop: { dataType: 'String', stringValue: 'yes' } } } : {}),
      ...(fifo ? { queueArn: FIFO_ARN, groupId: group } : {}),
    });
  const again = back.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(Number(r.attributes.ApproximateReceiveCount) + 1) },
  }));
  const own =
    n === 1 ? FIRST_BATCH.map((k, i) => make(k, i, i < 3 ? 'g1' : 'g2')) : [make(`n${n}x`, 0, `batch${n}`), make(`n${n}y`, 1, `batch${n}`)];
  if (n === 3) own.push(make('b', 2, 'batch3'));
  return [...again, ...own];
}

const KEYS = ['a', 'done', 'busy', 'b', 'drop', 'n2x', 'n2y', 'n3x', 'n3y', 'n4x', 'n4y', 'n5x', 'n5y'];

/**
 * Runs the scenario's five batches through one pattern, on `store` (fresh, its
 * clock `clock`): `done` seeded completed, `busy` seeded in progress elsewhere.
 */
export async function runPattern(pattern: Pattern, scenario: Scenario, store: IdempotencyStore, clock: ManualClock): Promise<Run> {
  const seed = (key: string, leaseMs: number) =>
    store.claim({
      consumer: CONSUMER,
      key,
      leaseMs,
      payloadHash: payloadHash(JSON.parse(bodyOf(key)) as unknown),
      messageId: `seed-${key}`,
    });
  const done = await seed('done', TIMEOUT_MS);
  if (done.kind !== 'claimed') throw new Error('seeding done');
  await store.complete({ id: done.id, token: done.token });
  await seed('busy', OTHER_LEASE_MS);

  const effects: Record<string, number> = {};
  const lines: BatchLogLine[] = [];
  let ran: string[] = [];
  const failing = `b1-${scenario.failAt}`;
  let m = middy<SQSEvent, SQSBatchResponse>().use(
    sqsIdempotency({ store, consumer: CONSUMER, key: (r) => jsonBody<{ orderNo: string }>(r).orderNo, logger: (l) => lines.push(l) }),
  );
  const rewriting = middlewareFor(scenario.rewrite);
  if (rewriting !== undefined) m = m.use(rewriting);
  const handler = m.handler(
    eachRecord(async (record, { key, attempt }) => {
      ran.push(`${record.messageId} ${key}${jsonBody<{ rewritten?: true }>(record).rewritten === true ? ' rewritten' : ''}`);
      if (record.messageId === failing && attempt === 1) throw new Error(`planned failure of ${failing}`);
      effects[key] = (effects[key] ?? 0) + 1;
    }),
  );

  const batches: BatchTrace[] = [];
  let back: SQSRecord[] = [];
  for (let n = 1; n <= 5; n += 1) {
    if (n === 4) clock.advance(OTHER_LEASE_MS);
    const records = recordsOf(scenario, clock, n, back);
    ran = [];
    if (pattern.managedInstances === true) vi.stubEnv('AWS_LAMBDA_MAX_CONCURRENCY', '16');
    const context = lambdaContext({ clock, timeoutMs: TIMEOUT_MS, memoryLimitInMB: pattern.memoryMb, functionName: 'patterns-fn' });
    // A copy: a middleware that rewrites records in place must not change what SQS would redeliver.
    const response = await handler(sqsEvent(structuredClone(records)), context).finally(() => vi.unstubAllEnvs());
    const failed = response.batchItemFailures.map((f) => f.itemIdentifier);
    back = records.filter((r) => failed.includes(r.messageId));
    const line = lines.at(-1);
    const outcomes = Object.fromEntries((line?.records ?? []).map((r) => [r.messageId, r.outcome]));
    const table: Record<string, string> = {};
    for (const key of KEYS) table[key] = (await store.get(store.recordId(CONSUMER, key)))?.status ?? '-';
    const keyOf = (r: SQSRecord) => jsonBody<{ orderNo: string }>(r).orderNo;
    const unsettled = records.filter((r) => !failed.includes(r.messageId) && table[keyOf(r)] !== 'COMPLETED').map((r) => r.messageId);
    batches.push({ failed, ran: ran.sort(), outcomes, table, unsettled });
  }
  return { batches, effects, requests: lines.map((l) => l.requests) };
}
