/**
 * `sqsIdempotency` with no `strategy`: the handler and every middleware after
 * ours see the event holding the records claimed for this invocation, at every
 * memory size and on every batch. The memory size is read from this
 * invocation's context (`memoryLimitInMB`), never from the environment when
 * the middleware is built, and only picks how claims and completions are sent
 * (the log line's `requests`). Run as on Lambda: `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`
 * set when the middleware is built, and the same size in each context.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { claimRequests, PER_RECORD_FROM_MB } from '../../../src/strategies/claim/requests.js';
import { lambdaContext, ManualClock, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

const CONSUMER = 'orders';
const SIZES = [128, 1024, 1769] as const;
type Mw = MiddlewareObj<SQSEvent, SQSBatchResponse>;

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The business key: the `orderNo` attribute when the record has one (its body may be encoded), else the body's. */
const keyOf = (r: SQSRecord) => r.messageAttributes['orderNo']?.stringValue ?? jsonBody<{ orderNo: string }>(r).orderNo;

interface Setup {
  readonly memoryMb: number;
  /** Middlewares after ours (between it and the handler). */
  readonly after?: Mw[];
  /** The batch handler; default `eachRecord(run)`. */
  readonly handler?: (run: (record: SQSRecord) => Promise<void>) => (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
}

/** A handler built as on Lambda at `memoryMb`: the records its handler saw, the effects by key, the log lines. */
function built(setup: Setup) {
  vi.stubEnv('AWS_LAMBDA_FUNCTION_MEMORY_SIZE', String(setup.memoryMb));
  const store = new MemoryIdempotencyStore({ clock: new ManualClock() });
  const seen: SQSRecord[] = [];
  const effects: string[] = [];
  const lines: BatchLogLine[] = [];
  const run = async (record: SQSRecord) => {
    seen.push(record);
    effects.push(keyOf(record));
  };
  let m = middy<SQSEvent, SQSBatchResponse>().use(
    sqsIdempotency({ store, consumer: CONSUMER, key: keyOf, logger: (line) => lines.push(line) }),
  );
  for (const mw of setup.after ?? []) m = m.use(mw);
  const handler = m.handler(setup.handler === undefined ? eachRecord(run) : setup.handler(run));
  const context = () => lambdaContext({ memoryLimitInMB: setup.memoryMb });
  /** Runs one batch: the message ids that came back. */
  async function batch(records: readonly SQSRecord[]): Promise<string[]> {
    const response = await handler(sqsEvent(records), context());
    return response.batchItemFailures.map((f) => f.itemIdentifier);
  }
  return { batch, handler, context, seen, effects, lines, store };
}

let ids = 0;
const record = (key: string, extra: Partial<Parameters<typeof sqsRecord>[0]> = {}) =>
  sqsRecord({ messageId: `m${(ids += 1)}`, body: { orderNo: key }, ...extra });
const fresh = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => record(`${prefix}-${i}`));

describe.each(SIZES)('at %i MB, on every batch', (memoryMb) => {
  it('a middleware after ours that copies the event: the handler gets the records, every one runs', async () => {
    const copying: Mw = {
      before: (request) => {
        request.event = { ...request.event, receivedAt: 1 } as SQSEvent;
      },
    };
    const { batch, effects } = built({ memoryMb, after: [copying] });
    for (let i = 0; i < 5; i += 1) expect(await batch(fresh(3, `copy${i}`))).toEqual([]);
    expect(effects).toHaveLength(15);
  });

  it('a middleware that filters and one that reorders, from batch 3 on: kept records run, dropped ones come back', async () => {
    let batchNo = 0;
    const filtering: Mw = {
      before: (request) => {
        batchNo += 1;
        if (batchNo < 3) return;
        request.event = { Records: request.event.Records.filter((r) => !keyOf(r).endsWith('-1')).reverse() };
      },
    };
    const { batch, effects } = built({ memoryMb, after: [filtering] });
    const sent = [fresh(3, 'f0'), fresh(3, 'f1'), fresh(3, 'f2'), fresh(3, 'f3')];
    const failed = [];
    for (const records of sent) failed.push(await batch(records));
    expect(failed.slice(0, 2)).toEqual([[], []]);
    // From batch 3 on, the dropped record (key ...-1) comes back, never acknowledged unrun.
    expect(failed.slice(2)).toEqual([[sent[2]?.[1]?.messageId], [sent[3]?.[1]?.messageId]]);
    expect(effects.slice(6).sort()).toEqual(['f2-0', 'f2-2', 'f3-0', 'f3-2']);
  });

  it('a content filter that first meets a record to drop in batch 3: that record never runs and comes back', async () => {
    const contentFilter: Mw = {
      before: (request) => {
        request.event = { Records: request.event.Records.filter((r) => !r.body.includes('"drop"')) };
      },
    };
    const { batch, effects } = built({ memoryMb, after: [contentFilter] });
    await batch(fresh(3, 'c0'));
    await batch(fresh(3, 'c1'));
    const dropped = sqsRecord({ messageId: `m${(ids += 1)}`, body: { orderNo: 'c2-x', drop: true } });
    const third = [record('c2-0'), dropped, record('c2-1')];
    expect(await batch(third)).toEqual([dropped.messageId]);
    expect(effects).not.toContain('c2-x');
    expect(effects.slice(6)).toEqual(['c2-0', 'c2-1']);
  });

  it('a middleware that decodes flagged records in place: a flagged record in a later batch reaches the handler decoded', async () => {
    const decoder: Mw = {
      before: (request) => {
        for (const r of request.event.Records) {
          if (r.messageAttributes['encoding']?.stringValue === 'base64') r.body = Buffer.from(r.body, 'base64').toString('utf8');
        }
      },
    };
    const { batch, seen, effects } = built({ memoryMb, after: [decoder] });
    await batch(fresh(2, 'd0'));
    await batch(fresh(2, 'd1'));
    const flagged = sqsRecord({
      messageId: `m${(ids += 1)}`,
      body: Buffer.from(JSON.stringify({ orderNo: 'd2-flagged' })).toString('base64'),
      messageAttributes: {
        encoding: { dataType: 'String', stringValue: 'base64' },
        orderNo: { dataType: 'String', stringValue: 'd2-flagged' },
      },
    });
    expect(await batch([record('d2-0'), flagged])).toEqual([]);
    expect(seen.find((r) => r.messageId === flagged.messageId)?.body).toBe('{"orderNo":"d2-flagged"}');
    expect(effects.slice(4)).toEqual(['d2-0', 'd2-flagged']);
  });
});

describe('the size is this invocation’s, never the build’s nor another invocation’s', () => {
  it('per-record from 512 MB up; batched below, when the size is unknown, and on Lambda Managed Instances', () => {
    expect(PER_RECORD_FROM_MB).toBe(512);
    for (const size of [undefined, '', 'abc', '128', '511', '512.5']) expect(claimRequests(size)).toBe('batched');
    for (const size of ['512', '1769', '10240']) expect(claimRequests(size)).toBe('per-record');
    vi.stubEnv('AWS_LAMBDA_MAX_CONCURRENCY', '64');
    expect(claimRequests('10240')).toBe('batched');
  });

  it('built at 1,769 MB, invoked with 128 MB contexts: batched requests (and the other way round: per-record)', async () => {
    const small = built({ memoryMb: 1769 });
    await small.handler(sqsEvent(fresh(2, 's0')), lambdaContext({ memoryLimitInMB: 128 }));
    expect(small.lines.map((l) => l.requests)).toEqual(['batched']);
    const large = built({ memoryMb: 128 });
    await large.handler(sqsEvent(fresh(2, 'l0')), lambdaContext({ memoryLimitInMB: 1769 }));
    expect(large.lines.map((l) => l.requests)).toEqual(['per-record']);
  });

  it('overlapping invocations: a handler that takes some batches itself gets its records whatever another invocation did', async () => {
    // A router: batches of "manual" records are answered by the handler itself, the others through eachRecord.
    const { batch, effects } = built({
      memoryMb: 1024,
      handler: (run) => {
        const each = eachRecord(run);
        return async (event, context) => {
          const manual = event.Records.length === 0 || event.Records.some((r) => keyOf(r).startsWith('manual'));
          if (!manual) return each(event, context);
          for (const r of event.Records) await run(r);
          return { batchItemFailures: [] };
        };
      },
    });
    expect(await batch(fresh(2, 'each0'))).toEqual([]);
    const overlapping = await Promise.all([batch(fresh(2, 'manual1')), batch(fresh(2, 'each1')), batch(fresh(2, 'manual2'))]);
    expect(overlapping).toEqual([[], [], []]);
    expect(await batch(fresh(2, 'manual3'))).toEqual([]);
    expect(effects.sort()).toEqual(['each0', 'manual1', 'each1', 'manual2', 'manual3'].flatMap((p) => [`${p}-0`, `${p}-1`]).sort());
  });
});
