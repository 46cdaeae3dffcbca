/**
 * The public SQS middleware (`sqsIdempotency` + `eachRecord` under Middy) on
 * a `MemoryIdempotencyStore` and a `ManualClock`: no Java, a batch in well
 * under a millisecond. Records every handler call, every applied effect (by
 * business key) and every batch log line, and seeds stored records through
 * the store's own API.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { eachRecord, jsonBody, sqsIdempotency, claim } from '../../src/index.js';
import type { IdempotencyStore } from '../../src/engine/store.js';
import { payloadHash } from '../../src/engine/hashing.js';
import type { BatchLogLine } from '../../src/observe/log.js';
import type { ClaimsMode } from './strategy.js';
import type { RecordHandler } from '../../src/batch/runner-link.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { acknowledgedKinds, type Bad, type PlanRecord, type Stored } from './batch-matrix-model.js';

export const CONSUMER = 'matrix';
export const RETENTION_MS = 60 * 60_000;
/** The lease of a claim seeded for "another live owner". */
export const OTHER_OWNER_LEASE_MS = 10 * 60_000;
/** The function timeout of every invocation: its claims' lease is this + the default 5 s margin. */
export const TIMEOUT_MS = 60_000;

export const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:matrix.fifo';

export const bodyOf = (key: string, v: number): string => JSON.stringify({ orderNo: key, v });
const badBody = (bad: Bad, v: number): string => (bad === 'nojson' ? `{"orderNo": broken ${v}` : JSON.stringify({ v }));

/** A stored state a key can be seeded in before a batch. */
export type SeedState = 'none' | 'completed' | 'retention-expired' | 'live-other-owner' | 'crashed-owner' | 'failed';

/** What a claim will find for a seeded key (v = 1), for the model. */
export function storedOf(state: SeedState): Stored {
  if (state === 'completed') return { status: 'COMPLETED', v: 1 };
  if (state === 'live-other-owner') return { status: 'IN_PROGRESS', v: 1 };
  return undefined;
}

/** How the queue presents the records: standard, FIFO, or a standard ("fair") queue whose producer set a group id. */
export type QueueKind = 'standard' | 'fair' | 'fifo';

export interface Delivery {
  readonly response: SQSBatchResponse;
  /** Message ids in `batchItemFailures`, in order. */
  readonly failed: readonly string[];
  readonly line: BatchLogLine;
  /** Message ids the handler was called for, in call order. */
  readonly calls: readonly string[];
}

export interface Rig {
  readonly store: MemoryIdempotencyStore;
  readonly clock: ManualClock;
  /** Effects applied by the handler, by business key. */
  readonly effects: Map<string, number>;
  /** Message ids the handler throws for (before applying the effect). */
  readonly throwing: Set<string>;
  readonly lines: BatchLogLine[];
  deliver(records: readonly SQSRecord[]): Promise<Delivery>;
  seed(key: string, state: SeedState, v?: number): Promise<void>;
  recordOf(p: PlanRecord): SQSRecord;
}

export interface RigOptions {
  readonly claims?: ClaimsMode;
  readonly release?: 'delete' | 'mark-failed';
  readonly queue?: QueueKind;
  /** Hand the middleware the store without its batched calls (claimMany, completeMany): every claim and completion alone. */
  readonly unbatched?: boolean;
  /** Run inside the handler before the effect (e.g. await a Deferred). */
  readonly beforeEffect?: (record: SQSRecord) => Promise<void> | void;
  /** The context's `memoryLimitInMB` (default 128): what picks the claim strategy's requests. */
  readonly memoryMb?: number;
}

export function rig(options: RigOptions = {}): Rig {
  const clock = new ManualClock();
  const store = new MemoryIdempotencyStore({ clock, retentionMs: RETENTION_MS, release: options.release ?? 'delete' });
  const effects = new Map<string, number>();
  const throwing = new Set<string>();
  const lines: BatchLogLine[] = [];
  let calls: string[] = [];
  const fn: RecordHandler = async (record, { key }) => {
    calls.push(record.messageId);
    await options.beforeEffect?.(record);
    if (throwing.has(record.messageId)) throw new Error(`planned failure of ${record.messageId}`);
    effects.set(key, (effects.get(key) ?? 0) + 1);
  };
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      sqsIdempotency({
        store: options.unbatched === true ? withoutBatchedCalls(store) : store,
        consumer: CONSUMER,
        key: (r) => jsonBody<{ orderNo?: string }>(r).orderNo,
        logger: (line) => lines.push(line),
        ...(options.claims === undefined ? {} : { strategy: claim({ pipelined: options.claims === 'pipelined' }) }),
      }),
    )
    .handler(eachRecord(fn));
  const queue = options.queue ?? 'standard';
  let context: { readonly at: number; readonly context: Context } | undefined;
  return {
    store,
    clock,
    effects,
    throwing,
    lines,
    async deliver(records) {
      calls = [];
      const before = lines.length;
      // A fresh context whenever the clock has moved (its remaining time counts from when it was built).
      if (context === undefined || context.at !== clock.now())
        context = {
          at: clock.now(),
          context: lambdaContext({ clock, timeoutMs: TIMEOUT_MS, functionName: 'matrix-fn', memoryLimitInMB: options.memoryMb ?? 128 }),
        };
      const response = await handler(sqsEvent(records), context.context);
      if (lines.length !== before + 1) throw new Error(`expected one log line per batch, got ${lines.length - before}`);
      const line = lines.at(-1) as BatchLogLine;
      return { response, failed: response.batchItemFailures.map((f) => f.itemIdentifier), line, calls };
    },
    async seed(key, state, v = 1) {
      if (state === 'none') return;
      const hash = payloadHash(JSON.parse(bodyOf(key, v)) as unknown);
      const claim = (leaseMs: number) => store.claim({ consumer: CONSUMER, key, leaseMs, payloadHash: hash, messageId: `seed-${key}` });
      const c = await claim(state === 'crashed-owner' ? 1_000 : OTHER_OWNER_LEASE_MS);
      if (c.kind !== 'claimed') throw new Error(`seeding ${key} (${state}): ${c.kind}`);
      if (state === 'completed' || state === 'retention-expired') await store.complete({ id: c.id, token: c.token });
      if (state === 'failed') await store.release({ id: c.id, token: c.token, error: new Error('an earlier attempt failed') });
      if (state === 'retention-expired') clock.advance(RETENTION_MS + 60_000);
      if (state === 'crashed-owner') clock.advance(2_000);
    },
    recordOf(p) {
      const body = p.bad === undefined ? bodyOf(p.key as string, p.v) : badBody(p.bad, p.v);
      const group = p.group ?? 'g';
      if (queue === 'fifo') return sqsRecord({ body, messageId: p.id, queueArn: FIFO_ARN, groupId: group, clock });
      if (queue === 'fair') return sqsRecord({ body, messageId: p.id, groupId: group, clock });
      return sqsRecord({ body, messageId: p.id, clock });
    },
  };
}

/** Whether a log line outcome is one the queue may delete. */
export const isAcknowledged = (outcome: string): boolean => acknowledgedKinds.has(outcome);

/** `store` as a store without the optional batched calls: what a third-party store that has none looks like. */
export function withoutBatchedCalls(store: MemoryIdempotencyStore): IdempotencyStore {
  return {
    recordId: (consumer, key) => store.recordId(consumer, key),
    claim: (input) => store.claim(input),
    complete: (input) => store.complete(input),
    release: (input) => store.release(input),
    renew: (input) => store.renew(input),
    get: (id) => store.get(id),
  };
}
