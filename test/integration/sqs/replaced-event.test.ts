/**
 * Issue 10, item 8: a middleware after `sqsIdempotency` that replaces
 * `request.event` (a parser, a normaliser), or its records, must not cut
 * `eachRecord` off from the invocation's runner. Under Middy 7 and Middy 6.
 */
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import middy6 from 'middy-core-6';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, sqsIdempotency, type SqsIdempotencyOptions, transaction } from '../../../src/index.js';
import type { EitherRecordHandler } from '../../support/strategy.js';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { businessTable, freshTable, testDynamo } from '../../support/dynamodb.js';
import { failedIds, harness, order, type Harness } from './harness.js';

type Wrapped = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
/** A before-middleware placed after ours. */
type Before = (request: { event: SQSEvent; context: Context }) => void | Promise<void>;
type Build = (first: MiddlewareObj<SQSEvent, SQSBatchResponse>, after: Before[], handler: Wrapped) => Wrapped;

// `.before()` adds to the same Middy instance, after the middlewares already used.
const build7: Build = (first, after, handler) => {
  const m = middy<SQSEvent, SQSBatchResponse>().use(first);
  for (const before of after) m.before(before);
  return m.handler(handler);
};
const build6: Build = (first, after, handler) => {
  const m = middy6<SQSEvent, SQSBatchResponse>().use(first);
  for (const before of after) m.before(before);
  const wrapped = m.handler(handler);
  return async (event, context) => (await wrapped(event, context)) as SQSBatchResponse;
};

/** A record as a parser leaves it: the body parsed. */
type Parsed = Omit<SQSRecord, 'body'> & { body: { orderNo: string }; invocation?: string };

// Middlewares a user may place after ours.
const newEvent: Before = (req) => {
  req.event = { ...req.event, Records: [...req.event.Records] };
};
const parseBodies =
  (produced: Parsed[] = [], tag?: string): Before =>
  (req) => {
    const records = req.event.Records.map((r): Parsed => {
      const parsed: Parsed = { ...r, body: JSON.parse(r.body) as { orderNo: string }, ...(tag === undefined ? {} : { invocation: tag }) };
      produced.push(parsed);
      return parsed;
    });
    req.event = { Records: records as unknown as SQSRecord[] };
  };
const drop =
  (messageId: string): Before =>
  (req) => {
    req.event = { Records: req.event.Records.filter((r) => r.messageId !== messageId) };
  };
const add =
  (record: SQSRecord): Before =>
  (req) => {
    req.event = { Records: [...req.event.Records, record] };
  };

describe.each([
  ['@middy/core 7', build7],
  ['@middy/core 6', build6],
])('eachRecord behind a middleware that replaces the event (%s)', (_name, build) => {
  function handler(
    h: Harness,
    after: Before[],
    fn: EitherRecordHandler,
    options: Partial<SqsIdempotencyOptions> = {},
    concurrency = 10,
  ): Wrapped {
    const first = sqsIdempotency({
      store: h.store,
      consumer: 'test',
      key: (r) => (JSON.parse(r.body) as { orderNo: string }).orderNo,
      logger: (line) => h.lines.push(line),
      ...options,
    });
    const each = options.strategy?.kind === 'transaction' ? eachRecord.inTransaction(fn, { concurrency }) : eachRecord(fn, { concurrency });
    return build(first, after, each);
  }
  const status = async (h: Harness, key: string) => (await h.store.get(h.store.recordId('test', key)))?.status;

  it('a new event object: business key as ctx.key, each record completed before the next starts', async () => {
    const h = await harness();
    const seen: string[] = [];
    const statusOfFirst: unknown[] = [];
    const run = handler(
      h,
      [newEvent],
      async (_r, { key }) => {
        if (seen.length > 0) statusOfFirst.push(await status(h, 'a'));
        seen.push(key);
      },
      {},
      1,
    );
    const response = await run(sqsEvent([order('a'), order('b')]), h.context());
    expect(failedIds(response)).toEqual([]);
    expect(seen).toEqual(['a', 'b']);
    expect(statusOfFirst).toEqual(['COMPLETED']);
    expect(await status(h, 'b')).toBe('COMPLETED');
  });

  it("replaced record objects: the handler gets the parser's objects, a redelivery is a duplicate", async () => {
    const h = await harness();
    const produced: Parsed[] = [];
    const got: unknown[] = [];
    const run = handler(h, [parseBodies(produced)], (record, { key }) => {
      got.push(record);
      h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
    });
    const records = [order('p1'), order('p2')];
    expect(failedIds(await run(sqsEvent(records), h.context()))).toEqual([]);
    expect(got).toHaveLength(2);
    expect(got[0]).toBe(produced[0]);
    expect(got[1]).toBe(produced[1]);
    expect(produced[0]?.body).toEqual({ orderNo: 'p1' });
    expect(failedIds(await run(sqsEvent(records), h.context()))).toEqual([]);
    expect([...h.effects]).toEqual([
      ['p1', 1],
      ['p2', 1],
    ]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(2);
  });

  it('records replaced in place on our own event object: the handler gets the new objects', async () => {
    const h = await harness();
    const got: unknown[] = [];
    const inPlace: Before = (req) => {
      req.event.Records = req.event.Records.map((r) => ({ ...r, body: JSON.parse(r.body) as unknown }) as unknown as SQSRecord);
    };
    const run = handler(h, [inPlace], (record) => {
      got.push(record.body);
    });
    expect(failedIds(await run(sqsEvent([order('i1')]), h.context()))).toEqual([]);
    expect(got).toEqual([{ orderNo: 'i1' }]);
  });

  it('the transaction strategy works behind a parser', async () => {
    const h = await harness();
    const { client, doc } = testDynamo();
    const business = await freshTable(client, businessTable, 'biz');
    const run = handler(
      h,
      [parseBodies()],
      (record, { key, tx }) => {
        const { orderNo } = (record as unknown as Parsed).body;
        if (tx === undefined) throw new Error('eachRecord.inTransaction hands tx');
        tx.put({ TableName: business, Item: { pk: `ledger#${key}`, orderNo } });
      },
      { strategy: transaction() },
    );
    const records = [order('t1'), order('t2')];
    expect(failedIds(await run(sqsEvent(records), h.context()))).toEqual([]);
    const item = await doc.send(new GetCommand({ TableName: business, Key: { pk: 'ledger#t2' } }));
    expect(item.Item).toEqual({ pk: 'ledger#t2', orderNo: 't2' });
    expect(h.lines.at(-1)?.counts.completed).toBe(2);
    expect(failedIds(await run(sqsEvent(records), h.context()))).toEqual([]);
    expect(h.lines.at(-1)?.counts.duplicate).toBe(2);
  });

  it('a record the replaced event dropped comes back, released, and runs on its redelivery', async () => {
    const h = await harness();
    const kept = order('d1');
    const dropped = order('d2');
    const seen: string[] = [];
    const run = handler(h, [drop(dropped.messageId)], (_r, { key }) => {
      seen.push(key);
    });
    expect(failedIds(await run(sqsEvent([kept, dropped]), h.context()))).toEqual([dropped.messageId]);
    expect(seen).toEqual(['d1']);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === dropped.messageId)?.error).toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/removed from the event/),
    });
    expect(await status(h, 'd2')).toBeUndefined();
    const plain = handler(h, [], (_r, { key }) => {
      seen.push(key);
    });
    expect(failedIds(await plain(sqsEvent([dropped]), h.context()))).toEqual([]);
    expect(seen).toEqual(['d1', 'd2']);
  });

  it('a dropped record stops the rest of its FIFO group', async () => {
    const h = await harness();
    const [g1, g2, g3] = ['f1', 'f2', 'f3'].map((k) => order(k, {}, { groupId: 'g' })) as [SQSRecord, SQSRecord, SQSRecord];
    const seen: string[] = [];
    const run = handler(h, [drop(g2.messageId)], (_r, { key }) => {
      seen.push(key);
    });
    expect(failedIds(await run(sqsEvent([g1, g2, g3]), h.context()))).toEqual([g2.messageId, g3.messageId]);
    expect(seen).toEqual(['f1']);
  });

  it('a record added that we do not own: TypeError, nothing runs, every record comes back', async () => {
    const h = await harness();
    const seen: string[] = [];
    const record = order('x1');
    const stranger = order('x2');
    const run = handler(h, [add(stranger)], (_r, { key }) => {
      seen.push(key);
    });
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(seen).toEqual([]);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({ name: 'TypeError', message: expect.stringContaining(stranger.messageId) });
    expect(await status(h, 'x1')).toBeUndefined();
  });

  it('a duplicate we acknowledged, added back by a middleware, does not run again', async () => {
    const h = await harness();
    const seen: string[] = [];
    const done = order('y1');
    const fresh = order('y2');
    await handler(h, [], (_r, { key }) => void seen.push(key))(sqsEvent([done]), h.context());
    const run = handler(h, [add(done)], (_r, { key }) => {
      seen.push(key);
    });
    expect(failedIds(await run(sqsEvent([done, fresh]), h.context()))).toEqual([fresh.messageId]);
    expect(seen).toEqual(['y1']);
  });

  it('a record twice in the replaced event: TypeError, nothing runs', async () => {
    const h = await harness();
    const seen: string[] = [];
    const record = order('z1');
    const twice: Before = (req) => {
      req.event = { Records: [...req.event.Records, ...req.event.Records] };
    };
    const run = handler(h, [twice], (_r, { key }) => void seen.push(key));
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(seen).toEqual([]);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/twice/) });
  });

  it('two concurrent invocations sharing one context each run only their own records', async () => {
    const h = await harness();
    const context = h.context();
    const seen: Array<{ invocation: string | undefined; messageId: string; key: string }> = [];
    let started = 0;
    let bothStarted: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => (bothStarted = resolve));
    const fn: EitherRecordHandler = async (record, { key, messageId }) => {
      seen.push({ invocation: (record as unknown as Parsed).invocation, messageId, key });
      if (++started === 2) bothStarted();
      await barrier; // both runners are registered on the context while either runs
    };
    const a = [order('ca1'), order('ca2')];
    const b = [order('cb1'), order('cb2')];
    const [ra, rb] = await Promise.all([
      handler(h, [parseBodies([], 'A')], fn)(sqsEvent(a), context),
      handler(h, [parseBodies([], 'B')], fn)(sqsEvent(b), context),
    ]);
    expect(failedIds(ra)).toEqual([]);
    expect(failedIds(rb)).toEqual([]);
    const ran = (tag: string) => seen.filter((s) => s.invocation === tag).map((s) => [s.messageId, s.key]);
    expect(ran('A').sort()).toEqual(
      [
        [a[0]?.messageId, 'ca1'],
        [a[1]?.messageId, 'ca2'],
      ].sort(),
    );
    expect(ran('B').sort()).toEqual(
      [
        [b[0]?.messageId, 'cb1'],
        [b[1]?.messageId, 'cb2'],
      ].sort(),
    );
  });

  it('one message handed to two invocations sharing a context (transaction strategy): each runs under its own, the message commits once', async () => {
    const h = await harness();
    const context = h.context();
    const seen: string[] = [];
    let arrived = 0;
    let bothLinked: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (bothLinked = resolve));
    // Both invocations are linked before either handler looks its runner up; each handler has its own view of the context.
    const meet: Before = async () => {
      if (++arrived === 2) bothLinked();
      await gate;
    };
    const record = order('s1');
    const run = (tag: string) =>
      handler(h, [parseBodies([], tag), meet], (_r, { key }) => void seen.push(key), { strategy: transaction() });
    const responses = await Promise.all([run('A')(sqsEvent([record]), context), run('B')(sqsEvent([record]), context)]);
    expect(responses.map(failedIds)).toEqual([[], []]);
    // Both ran under their own invocation (the business key, not the message id); one commit won, the other is its duplicate.
    expect(seen).toEqual(['s1', 's1']);
    expect(h.lines.map((l) => l.records[0]?.outcome).sort()).toEqual(['completed', 'duplicate']);
    expect(await status(h, 's1')).toBe('COMPLETED');
  });

  it('an event no runner of this invocation owns: TypeError, the records come back and are released', async () => {
    const h = await harness();
    const seen: string[] = [];
    const renamed: Before = (req) => {
      req.event = { Records: req.event.Records.map((r) => ({ ...r, messageId: `parsed-${r.messageId}` })) };
    };
    const record = order('n1');
    const run = handler(h, [renamed], (_r, { key }) => void seen.push(key));
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(seen).toEqual([]);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/none of the records/) });
    expect(await status(h, 'n1')).toBeUndefined();
  });

  it('an event that is not an SQS event any more: TypeError, the records come back', async () => {
    const h = await harness();
    const seen: string[] = [];
    const unwrap: Before = (req) => {
      req.event = req.event.Records.map((r) => JSON.parse(r.body) as unknown) as unknown as SQSEvent;
    };
    const record = order('u1');
    const run = handler(h, [unwrap], (_r, { key }) => void seen.push(key));
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(seen).toEqual([]);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({ name: 'TypeError', message: expect.stringMatching(/no Records array/) });
  });

  it('event and context both replaced by copies: the copied context still leads to the invocation (never a plain run)', async () => {
    const h = await harness();
    const seen: string[] = [];
    const newContext: Before = (req) => {
      req.context = { ...req.context };
    };
    const record = order('c1');
    const run = handler(h, [newEvent, newContext], (_r, { key }) => void seen.push(key));
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([]);
    // The business key: run by the invocation's runner, not plainly under the message id.
    expect(seen).toEqual(['c1']);
    expect(h.lines.at(-1)?.records[0]?.outcome).toBe('completed');
    expect(await status(h, 'c1')).toBe('COMPLETED');
  });

  it('event and context both replaced by new objects (not copies): TypeError, nothing runs, the record comes back (never a plain run)', async () => {
    const h = await harness();
    const seen: string[] = [];
    // A context built field by field: no copy of the view the middleware handed on.
    const handBuiltContext: Before = (req) => {
      req.context = { awsRequestId: req.context.awsRequestId, getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
    };
    const record = order('c2');
    const run = handler(h, [newEvent, handBuiltContext], (_r, { key }) => void seen.push(key));
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([record.messageId]);
    expect(seen).toEqual([]);
    expect(h.lines.at(-1)?.records[0]?.error).toMatchObject({
      name: 'TypeError',
      message: expect.stringMatching(/replaced both the event and the Lambda context/),
    });
    expect(await status(h, 'c2')).not.toBe('COMPLETED');
  });
});

describe('a plain eachRecord while an invocation with the middleware is running', () => {
  it('runs its own event plainly (message id as key), not under the running invocation', async () => {
    const h = await harness();
    const record = sqsRecord({ body: 'plain' });
    const keys: string[] = [];
    const plain = eachRecord((_r, { key }) => void keys.push(key));
    const first = sqsIdempotency({
      store: h.store,
      consumer: 'test',
      key: (r) => (JSON.parse(r.body) as { orderNo: string }).orderNo,
      logger: false,
    });
    const outer = build7(
      first,
      [newEvent],
      eachRecord(async () => {
        expect(await plain(sqsEvent([record]), {} as Context)).toEqual({ batchItemFailures: [] });
      }),
    );
    expect(failedIds(await outer(sqsEvent([order('o1')]), h.context()))).toEqual([]);
    expect(keys).toEqual([record.messageId]);
  });

  it('once a batch is answered, its records run plainly again in a plain eachRecord (its claims are no longer held)', async () => {
    const h = await harness();
    const record = order('p1');
    const keys: string[] = [];
    const plain = eachRecord((_r, { key }) => void keys.push(key));
    const run = build7(
      sqsIdempotency({ store: h.store, consumer: 'test', key: (r) => (JSON.parse(r.body) as { orderNo: string }).orderNo, logger: false }),
      [],
      eachRecord(() => undefined),
    );
    expect(failedIds(await run(sqsEvent([record]), h.context()))).toEqual([]);
    expect(await plain(sqsEvent([record]), {} as Context)).toEqual({ batchItemFailures: [] });
    expect(keys).toEqual([record.messageId]);
  });
});
