/**
 * Issue 31 item 4: `sqsIdempotency` without a `strategy` picks its claims'
 * request shape by `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, read when the
 * middleware is built: batched (`claimMany` for the batch) below 512 MB and
 * when the size is unknown, pipelined (one `claim` per record, each record
 * started at once) from 512 MB up, once the container has seen its handler
 * take a batch through `eachRecord` with the records handed on. Outcomes
 * (duplicates acknowledged, failures reported, nothing lost) are the same at
 * both sizes; an explicit `strategy` ignores the size.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claim, eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from '../../../src/index.js';
import type { ClaimInput, CompleteInput } from '../../../src/engine/store.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { defaultClaimFor, memorySizeMb, PIPELINED_FROM_MB } from '../../../src/strategies/claim/memory-sized.js';
import { defaultClaim } from '../../../src/strategies/claim/steps.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { withoutBatchedCalls } from '../../support/memory-batch.js';

const CONSUMER = 'orders';
const MEMORY_ENV = 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The store's claim calls, in order: `claimMany(3)` or `claim`. */
function recorded(inner: MemoryIdempotencyStore, log: string[]): IdempotencyStore {
  return {
    ...withoutBatchedCalls(inner),
    claim: (input) => {
      log.push('claim');
      return inner.claim(input);
    },
    claimMany: async (inputs: readonly ClaimInput[]) => {
      log.push(`claimMany(${inputs.length})`);
      return inner.claimMany(inputs);
    },
    completeMany: async (inputs: readonly CompleteInput[]) => inner.completeMany(inputs),
  };
}

const body = (orderNo: string) => JSON.stringify({ orderNo });
const keyOf = (r: SQSRecord) => jsonBody<{ orderNo: string }>(r).orderNo;

interface Setup {
  /** `undefined`: the variable is unset. */
  readonly memory: string | undefined;
  readonly strategy?: ReturnType<typeof claim>;
  /** Middlewares after ours (between it and the handler). */
  readonly after?: MiddlewareObj<SQSEvent, SQSBatchResponse>[];
  /** The batch handler; default `eachRecord(run)`. */
  readonly handler?: (run: (record: SQSRecord) => Promise<void>) => (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  /** Throws for these keys. */
  readonly failing?: ReadonlySet<string>;
}

/** A handler built under `memory`, on a recorded memory store; its claim calls, effects and log lines. */
function built(setup: Setup) {
  if (setup.memory === undefined) vi.stubEnv(MEMORY_ENV, undefined);
  else vi.stubEnv(MEMORY_ENV, setup.memory);
  const inner = new MemoryIdempotencyStore({ clock: new ManualClock() });
  const calls: string[] = [];
  const effects: string[] = [];
  const seen: unknown[] = [];
  const lines: BatchLogLine[] = [];
  const run = async (record: SQSRecord) => {
    seen.push(record.body);
    const key = keyOf(record);
    if (setup.failing?.has(key) === true) throw new Error(`failed ${key}`);
    effects.push(key);
  };
  let m = middy<SQSEvent, SQSBatchResponse>().use(
    sqsIdempotency({
      store: recorded(inner, calls),
      consumer: CONSUMER,
      key: keyOf,
      logger: (line) => lines.push(line),
      ...(setup.strategy === undefined ? {} : { strategy: setup.strategy }),
    }),
  );
  // Built: the size is read now, not per batch.
  vi.unstubAllEnvs();
  for (const mw of setup.after ?? []) m = m.use(mw);
  const handler = m.handler(setup.handler === undefined ? eachRecord(run) : setup.handler(run));
  /** Runs one batch; the claim calls it made. */
  async function batch(records: readonly SQSRecord[]) {
    const before = calls.length;
    const response = await handler(sqsEvent(records), lambdaContext());
    return { response, calls: calls.slice(before), failed: response.batchItemFailures.map((f) => f.itemIdentifier) };
  }
  return { batch, effects, seen, lines, inner };
}

let ids = 0;
const records = (...keys: string[]) => keys.map((k) => sqsRecord({ messageId: `m${(ids += 1)}`, body: body(k) }));
const fresh = (n: number, prefix: string) => records(...Array.from({ length: n }, (_, i) => `${prefix}-${i}`));

describe('the memory size', () => {
  it('is a whole positive number of MB, else unknown', () => {
    expect(memorySizeMb('1769')).toBe(1769);
    expect(memorySizeMb('128')).toBe(128);
    for (const bad of [undefined, '', 'abc', '0', '-512', '512.5', ' 512', '1e3', '0512']) expect(memorySizeMb(bad)).toBeUndefined();
  });

  it('below 512 MB and unknown: today’s default object; from 512 MB: another claim strategy, without a heartbeat', () => {
    expect(PIPELINED_FROM_MB).toBe(512);
    for (const mb of [undefined, 128, 511]) expect(defaultClaimFor(mb)).toBe(defaultClaim);
    for (const mb of [512, 1769]) {
      const strategy = defaultClaimFor(mb);
      expect(strategy).not.toBe(defaultClaim);
      expect(strategy).toMatchObject({ kind: 'claim', heartbeat: false, memoryMb: mb });
    }
  });
});

describe('sqsIdempotency without a strategy: the claims’ request shape by AWS_LAMBDA_FUNCTION_MEMORY_SIZE', () => {
  const batched = [undefined, '', 'abc', '128', '511'];
  const pipelined = ['512', '1769', '10240'];

  for (const memory of batched) {
    it(`${JSON.stringify(memory ?? 'unset')}: every batch's claims in one claimMany`, async () => {
      const { batch } = built({ memory });
      for (let i = 0; i < 3; i += 1) expect((await batch(fresh(3, `b${i}`))).calls).toEqual(['claimMany(3)']);
    });
  }

  for (const memory of pipelined) {
    it(`${memory}: the first batch batched; once eachRecord took it as handed, one claim per record`, async () => {
      const { batch, effects } = built({ memory });
      expect((await batch(fresh(3, 'first'))).calls).toEqual(['claimMany(3)']);
      expect((await batch(fresh(3, 'second'))).calls).toEqual(['claim', 'claim', 'claim']);
      expect((await batch(fresh(2, 'third'))).calls).toEqual(['claim', 'claim']);
      expect(effects).toHaveLength(8);
    });
  }

  it('the size is read when the middleware is built, not per batch', async () => {
    const { batch } = built({ memory: '1769' });
    vi.stubEnv(MEMORY_ENV, '128');
    await batch(fresh(2, 'a'));
    expect((await batch(fresh(2, 'b'))).calls).toEqual(['claim', 'claim']);
  });

  it('an explicit strategy ignores the size: claim() stays batched at 1,769 MB, claim({ pipelined: true }) pipelines at 128 MB from the first batch', async () => {
    const explicit = built({ memory: '1769', strategy: claim() });
    for (let i = 0; i < 3; i += 1) expect((await explicit.batch(fresh(2, `e${i}`))).calls).toEqual(['claimMany(2)']);
    const chosen = built({ memory: '128', strategy: claim({ pipelined: true }) });
    expect((await chosen.batch(fresh(2, 'p'))).calls).toEqual(['claim', 'claim']);
  });
});

describe('the default from 512 MB up stays batched where pipelined claims would change what the handler sees', () => {
  it('a handler that answers for the batch itself (no eachRecord): batched claims on every batch, its own response counts', async () => {
    const { batch, effects } = built({
      memory: '1024',
      handler: (run) => async (event) => {
        for (const r of event.Records) await run(r);
        return { batchItemFailures: [] };
      },
    });
    for (let i = 0; i < 3; i += 1) {
      const { calls, failed } = await batch(fresh(2, `own${i}`));
      expect(calls).toEqual(['claimMany(2)']);
      expect(failed).toEqual([]);
    }
    expect(effects).toHaveLength(6);
  });

  it('a middleware after ours that replaces the records (a parser): batched, the handler gets its records every time', async () => {
    const parser: MiddlewareObj<SQSEvent, SQSBatchResponse> = {
      before: (request) => {
        request.event = { Records: request.event.Records.map((r) => ({ ...r, body: `${r.body} ` })) };
      },
    };
    const { batch, seen } = built({ memory: '1024', after: [parser] });
    for (let i = 0; i < 3; i += 1) expect((await batch(fresh(2, `parsed${i}`))).calls).toEqual(['claimMany(2)']);
    expect(seen).toHaveLength(6);
    expect(seen.every((b) => typeof b === 'string' && b.endsWith(' '))).toBe(true);
  });

  it('a middleware after ours that rewrites records in place: batched, the handler gets the rewritten records every time', async () => {
    const inPlace: MiddlewareObj<SQSEvent, SQSBatchResponse> = {
      before: (request) => {
        for (const r of request.event.Records) r.body = `${r.body} `;
      },
    };
    const { batch, seen } = built({ memory: '1024', after: [inPlace] });
    for (let i = 0; i < 3; i += 1) expect((await batch(fresh(2, `rewritten${i}`))).calls).toEqual(['claimMany(2)']);
    expect(seen).toHaveLength(6);
    expect(seen.every((b) => typeof b === 'string' && b.endsWith(' '))).toBe(true);
  });

  it('a handler that stops calling eachRecord once pipelined: that batch comes back whole (nothing run, claims released), then batched for good', async () => {
    let useEachRecord = true;
    const { batch, effects, inner } = built({
      memory: '1024',
      handler: (run) => {
        const each = eachRecord(run);
        return async (event, context) => {
          if (useEachRecord) return each(event, context);
          for (const r of event.Records) await run(r);
          return { batchItemFailures: [] };
        };
      },
    });
    await batch(fresh(2, 'learn'));
    useEachRecord = false;
    const lost = fresh(2, 'lost');
    const pipelinedBatch = await batch(lost);
    expect(pipelinedBatch.calls).toEqual(['claim', 'claim']);
    expect(pipelinedBatch.failed).toEqual(lost.map((r) => r.messageId));
    for (const key of ['lost-0', 'lost-1']) expect(await inner.get(inner.recordId(CONSUMER, key))).toBeUndefined();
    // Redelivered: batched claims now, handed to the handler, run once.
    const redelivered = await batch(lost);
    expect(redelivered.calls).toEqual(['claimMany(2)']);
    expect(redelivered.failed).toEqual([]);
    useEachRecord = true;
    expect((await batch(fresh(2, 'after'))).calls).toEqual(['claimMany(2)']);
    expect(effects).toEqual(['learn-0', 'learn-1', 'lost-0', 'lost-1', 'after-0', 'after-1']);
  });
});

describe('the same outcomes at 256 MB (batched) and 1,024 MB (pipelined): a key twice in a batch x the failure position', () => {
  // Batch 1 teaches the 1,024 MB default (batched claims); batch 2 is the one under test (pipelined at 1,024 MB);
  // batch 3 redelivers batch 2 with no failures: the failed records run now, the others are duplicates.
  const shapes = {
    'no repeated key': ['a', 'b', 'c', 'd'],
    'a key twice': ['a', 'b', 'a', 'c'],
    'a key twice, adjacent': ['a', 'a', 'b', 'c'],
  } as const;
  const failures = ['none', 'first', 'last', 'the repeated key'] as const;

  for (const [shape, keys] of Object.entries(shapes)) {
    for (const failure of failures) {
      it(`${shape}, failure: ${failure}`, async () => {
        const failingKey =
          failure === 'first' ? keys[0] : failure === 'last' ? keys[keys.length - 1] : failure === 'the repeated key' ? 'a' : undefined;
        const results = [];
        for (const memory of ['256', '1024']) {
          const failing = new Set<string>(failingKey === undefined ? [] : [`t-${failingKey}`]);
          const { batch, effects, lines } = built({ memory, failing });
          await batch(fresh(3, 'teach'));
          const sent = records(...keys.map((k) => `t-${k}`));
          const under = await batch(sent);
          failing.clear();
          const redelivered = await batch(sent);
          const index = (id: string) => sent.findIndex((r) => r.messageId === id);
          results.push({
            memory,
            calls: under.calls,
            failed: under.failed.map(index),
            outcomes: lines[1]?.records.map((r) => r.outcome),
            redeliveredFailed: redelivered.failed,
            redeliveredOutcomes: lines[2]?.records.map((r) => r.outcome),
            effects: effects.filter((k) => k.startsWith('t-')).sort(),
          });
        }
        const [small, large] = results;
        if (small === undefined || large === undefined) throw new Error('two runs expected');
        // The request shape differs: batched at 256 MB, one claim per first copy of a key at 1,024 MB.
        const firstCopies = new Set(keys).size;
        expect(small.calls).toEqual([`claimMany(${firstCopies})`]);
        expect(large.calls).toEqual(Array(firstCopies).fill('claim'));
        // The outcomes do not.
        expect(large.failed).toEqual(small.failed);
        expect(large.outcomes).toEqual(small.outcomes);
        expect(large.redeliveredOutcomes).toEqual(small.redeliveredOutcomes);
        // Every record reported failed when its key failed, and only then.
        const expectedFailed = keys.flatMap((k, i) => (`t-${k}` === `t-${failingKey}` ? [i] : []));
        expect(small.failed).toEqual(expectedFailed);
        // Nothing lost, nothing twice: each key's effect applied exactly once over the delivery and its redelivery.
        for (const run of [small, large]) {
          expect(run.redeliveredFailed).toEqual([]);
          expect(run.effects).toEqual([...new Set(keys)].map((k) => `t-${k}`).sort());
        }
      });
    }
  }
});
