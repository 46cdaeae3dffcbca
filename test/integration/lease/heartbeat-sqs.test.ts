/**
 * Issue 14, item 4: `strategy: claim({ heartbeat })` through `sqsIdempotency` +
 * `eachRecord` on DynamoDB Local, with real takeover attempts during a long
 * effect. Real time with small numbers: a 1.5 s lease, renewed every 250 ms,
 * and a second invocation that tries the same key once the first lease has
 * long passed. The control without heartbeat shows the attempt is real: there
 * it takes the key over and the effect runs twice.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eachRecord, jsonBody, LeaseLostError, sqsIdempotency, claim, transaction } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { LeaseOptions } from '../../../src/engine/lease.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import type { RenewableIdempotencyStore } from '../../../src/engine/store.js';
import type { HeartbeatSetting } from '../../../src/engine/lease.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { freshTable, testDynamo } from '../../support/dynamodb.js';

const LEASE = { marginMs: 0, floorMs: 0, capMs: 1_500 } as const;

/** A test's lease bounds and, when it has one, its heartbeat (given to the middleware as `claim({ heartbeat })`). */
type LeaseSetup = LeaseOptions & { readonly heartbeat?: HeartbeatSetting };

/** The middleware options of a setup: the bounds as `lease`, the heartbeat in the strategy. */
function leaseOptions({ heartbeat, ...lease }: LeaseSetup) {
  return { lease, strategy: heartbeat === undefined ? claim() : claim({ heartbeat }) };
}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A promise the test opens by hand. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const order = (orderNo: string): SQSRecord => sqsRecord({ body: JSON.stringify({ orderNo }) });
const failed = (r: SQSBatchResponse) => r.batchItemFailures.map((f) => f.itemIdentifier);
const kinds = (lines: BatchLogLine[]) => lines.flatMap((l) => l.records.map((r) => r.outcome));

describe('lease heartbeat through sqsIdempotency + eachRecord (DynamoDB Local)', () => {
  const { client, doc } = testDynamo();
  let tableName = '';
  beforeAll(async () => {
    tableName = await freshTable(client);
  });

  function build(lease: LeaseSetup, fn: RecordHandler, lines: BatchLogLine[]) {
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName });
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'lease',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          ...leaseOptions(lease),
          logger: (l) => lines.push(l),
        }),
      )
      .handler(eachRecord(fn));
    return { store, handler };
  }

  /** A first delivery that runs until the test opens its gate, and a second delivery of the same key tried after the first lease. */
  async function race(lease: LeaseSetup, key: string) {
    const effects: string[] = [];
    const lines: BatchLogLine[] = [];
    const started = gate();
    const finish = gate();
    const { handler } = build(
      lease,
      async (record, { signal }) => {
        if (record.messageId === 'first') {
          started.open();
          await finish.opened;
        }
        signal.throwIfAborted();
        effects.push(record.messageId);
      },
      lines,
    );
    const first = handler(sqsEvent([{ ...order(key), messageId: 'first' }]), lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }));
    await started.opened;
    await sleep(LEASE.capMs + 1_000); // the first lease has passed by now
    const second = await handler(
      sqsEvent([{ ...order(key), messageId: 'second' }]),
      lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }),
    );
    finish.open();
    return { first: await first, second, effects, lines };
  }

  it('with heartbeat, a second delivery during a long effect finds the key in progress, and the effect runs once', async () => {
    const { first, second, effects, lines } = await race({ ...LEASE, heartbeat: { everyMs: 250 } }, 'hb-held');
    expect(failed(second), 'the second delivery comes back (in progress)').toEqual(['second']);
    expect(failed(first), `the long effect completes: ${JSON.stringify(lines)}`).toEqual([]);
    expect(effects).toEqual(['first']);
    expect(kinds(lines).sort()).toEqual(['completed', 'in-progress']);
  }, 15_000);

  it('control: without heartbeat the same attempt takes the key over; the effect runs twice and the first ends lease-lost', async () => {
    const { first, second, effects, lines } = await race(LEASE, 'hb-control');
    expect(failed(second)).toEqual([]);
    expect(failed(first)).toEqual(['first']);
    expect(effects.sort()).toEqual(['first', 'second']);
    expect(kinds(lines).sort()).toEqual(['completed', 'lease-lost']);
  }, 15_000);

  it('a stolen claim aborts the handler’s signal with a LeaseLostError; the record ends lease-lost and the thief’s record stands', async () => {
    const lines: BatchLogLine[] = [];
    const effects: string[] = [];
    const started = gate();
    let reason: unknown;
    const { store, handler } = build(
      { ...LEASE, heartbeat: { everyMs: 100 } },
      async (record, { signal }) => {
        started.open();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        reason = signal.reason;
        signal.throwIfAborted(); // a handler that honours the signal applies nothing
        effects.push(record.messageId);
      },
      lines,
    );
    const running = handler(
      sqsEvent([{ ...order('hb-stolen'), messageId: 'm-1' }]),
      lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }),
    );
    await started.opened;
    const id = store.recordId('lease', 'hb-stolen');
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id },
        UpdateExpression: 'SET #o = :t',
        ExpressionAttributeNames: { '#o': 'owner' },
        ExpressionAttributeValues: { ':t': 'thief' },
      }),
    );
    const response = await running;
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect((reason as LeaseLostError).existing?.owner).toBe('thief');
    expect(failed(response)).toEqual(['m-1']);
    expect(effects).toEqual([]);
    expect(kinds(lines)).toEqual(['lease-lost']);
    const record = await store.get(id);
    expect({ status: record?.status, owner: record?.owner }).toEqual({ status: 'IN_PROGRESS', owner: 'thief' });
  }, 15_000);

  it('a record waiting in its lane behind a long one keeps its claim too (concurrency 1)', async () => {
    const lines: BatchLogLine[] = [];
    const effects: string[] = [];
    const started = gate();
    const finish = gate();
    const store = new DynamoDBIdempotencyStore({ client: doc, tableName });
    const middleware = sqsIdempotency({
      store,
      consumer: 'lease',
      key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
      lease: LEASE,
      strategy: claim({ heartbeat: { everyMs: 250 } }),
      logger: (l) => lines.push(l),
    });
    const fn: RecordHandler = async (record, { signal }) => {
      if (record.messageId === 'long') {
        started.open();
        await finish.opened;
      }
      signal.throwIfAborted();
      effects.push(record.messageId);
    };
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(middleware)
      .handler(eachRecord(fn, { concurrency: 1 }));
    const batch = handler(
      sqsEvent([
        { ...order('lane-long'), messageId: 'long' },
        { ...order('lane-waiting'), messageId: 'waiting' },
      ]),
      lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }),
    );
    await started.opened;
    await sleep(LEASE.capMs + 1_000);
    const retry = await handler(
      sqsEvent([{ ...order('lane-waiting'), messageId: 'retry' }]),
      lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }),
    );
    finish.open();
    expect(failed(retry), 'the waiting record’s key is still claimed').toEqual(['retry']);
    expect(failed(await batch)).toEqual([]);
    expect(effects).toEqual(['long', 'waiting']);
  }, 15_000);

  it('a renewal in flight when the batch is answered settles before the middleware resolves, never after', async () => {
    const events: string[] = [];
    const renewSent = gate();
    const renewLetGo = gate();
    const renewSettled = gate();
    const inner = new DynamoDBIdempotencyStore({ client: doc, tableName });
    let renewals = 0;
    // The first renewal is held on its way to DynamoDB until the test lets it go.
    const store: RenewableIdempotencyStore = {
      recordId: (consumer, key) => inner.recordId(consumer, key),
      claim: (input) => inner.claim(input),
      complete: (input) => inner.complete(input),
      release: (input) => inner.release(input),
      get: (id) => inner.get(id),
      renew: async (input) => {
        renewals += 1;
        if (renewals > 1) return inner.renew(input);
        renewSent.open();
        await renewLetGo.opened;
        try {
          return await inner.renew(input);
        } finally {
          events.push('renewal settled');
          renewSettled.open();
        }
      },
    };
    const finish = gate();
    const each = eachRecord(async () => {
      await finish.opened; // a long effect, still running when the batch gives up
    });
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'lease',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          lease: LEASE,
          strategy: claim({ heartbeat: { everyMs: 50 } }),
          logger: false,
        }),
      )
      .handler(async (event: SQSEvent, context) => {
        void each(event, context);
        await renewSent.opened;
        // The batch is answered while a renewal is in flight; the renewal gets through a moment later.
        setTimeout(() => renewLetGo.open(), 50);
        throw new Error('the batch handler gave up');
      });
    const response = await handler(sqsEvent([order('hb-close')]), lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }));
    events.push('middleware resolved');
    const id = store.recordId('lease', 'hb-close');
    const leaseAtAnswer = (await inner.get(id))?.leaseUntil;
    await renewSettled.opened;
    const leaseAfter = (await inner.get(id))?.leaseUntil;
    finish.open();
    expect(failed(response)).toHaveLength(1);
    // The claim left to its lease keeps the lease it had when the batch was answered: no renewal lands later.
    expect(leaseAfter).toBe(leaseAtAnswer);
    expect(events).toEqual(['renewal settled', 'middleware resolved']);
    expect(renewals).toBe(1);
  }, 15_000);

  it('without heartbeat the signal is there and never aborts', async () => {
    const lines: BatchLogLine[] = [];
    const seen: boolean[] = [];
    const { handler } = build(LEASE, (_r, { signal }) => void seen.push(signal instanceof AbortSignal && !signal.aborted), lines);
    const response = await handler(sqsEvent([order('hb-plain')]), lambdaContext({ functionName: 'fn', timeoutMs: 60_000 }));
    expect(failed(response)).toEqual([]);
    expect(seen).toEqual([true]);
  });
});

describe('heartbeat options are checked when the factory or the middleware is built', () => {
  const key = (r: SQSRecord) => r.messageId;
  const store = new MemoryIdempotencyStore();
  it.each([
    ['a heartbeat that is not a boolean or { everyMs }', 'yes'],
    ['everyMs 0', { everyMs: 0 }],
    ['an unknown heartbeat setting', { everyMs: 100, jitter: 1 }],
  ])('%s is a TypeError naming heartbeat (claim()) or strategy (a hand-made strategy object, which has no steps)', (_name, heartbeat) => {
    expect(() => claim({ heartbeat: heartbeat as never })).toThrow(/claim\(\): option "heartbeat"/);
    expect(() => claim({ heartbeat: heartbeat as never })).toThrow(TypeError);
    const handMade = { kind: 'claim', pipelined: false, heartbeat } as never;
    expect(() => sqsIdempotency({ store, key, strategy: handMade })).toThrow(/option "strategy"/);
    expect(() => sqsIdempotency({ store, key, strategy: handMade })).toThrow(TypeError);
  });

  it('a heartbeat has no place in a transaction, nor in the lease: a TypeError naming the option', () => {
    expect(() => transaction({ heartbeat: true } as never)).toThrow(/transaction\(\): unknown option "heartbeat"/);
    const flat = { store, key, lease: { heartbeat: true } } as never;
    expect(() => sqsIdempotency(flat)).toThrow(TypeError);
    expect(() => sqsIdempotency(flat)).toThrow('sqsIdempotency: option "lease" must be an object with marginMs, floorMs and capMs');
  });

  it('heartbeat on a store without renew is a TypeError naming strategy', () => {
    const { renew: _renew, ...rest } = {
      ...store,
      recordId: store.recordId.bind(store),
      claim: store.claim.bind(store),
      complete: store.complete.bind(store),
      release: store.release.bind(store),
      get: store.get.bind(store),
      renew: undefined,
    };
    expect(() => sqsIdempotency({ store: rest, key, strategy: claim({ heartbeat: true }) })).toThrow(
      /"strategy" has heartbeat, but the store has no renew/,
    );
    expect(() => sqsIdempotency({ store: rest, key, strategy: claim({ heartbeat: false }) })).not.toThrow();
  });
});
