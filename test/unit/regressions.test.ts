/**
 * Regressions from a review, pure/unit level: the EventBridge wait bound, transaction
 * builder item identity for binary and bigint keys, cancellation decoding,
 * and options given as undefined inside nested objects.
 */
import middy from '@middy/core';
import type { EventBridgeEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  IdempotencyInProgressError,
  TransactionBuilder,
  eachRecord,
  eventBridgeIdempotency,
  sqsIdempotency,
  type IdempotencyStore,
} from '../../src/index.js';
import type { IdempotencyRecord } from '../../src/engine/record.js';
import type { ClaimInput, ClaimResult } from '../../src/engine/store.js';
import type { WaitPolicy } from '../../src/engine/wait.js';
import { classifyCancellation } from '../../src/stores/dynamodb/cancellation.js';
import { checkTransactionLimits } from '../../src/stores/dynamodb/commit-limits.js';
import { eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../src/testing/index.js';

type OrderPaid = EventBridgeEvent<'OrderPaid', { orderNo: string }>;

/** A key that other consumers keep claiming and releasing: every read finds it free, every claim finds it taken. */
function churningStore(): IdempotencyStore & { claims: number; gets: number; leases: number[] } {
  const held = (id: string): IdempotencyRecord => ({
    id,
    status: 'IN_PROGRESS',
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    attempts: 1,
    leaseUntil: Date.now() + 60_000,
  });
  const s = {
    claims: 0,
    gets: 0,
    leases: [] as number[],
    recordId: (consumer: string, key: string) => `${consumer}#${key}`,
    async claim(input: ClaimInput): Promise<ClaimResult> {
      s.claims += 1;
      s.leases.push(input.leaseMs);
      const id = `${input.consumer}#${input.key}`;
      return { kind: 'in-progress', id, existing: held(id) };
    },
    async get() {
      s.gets += 1;
      return undefined; // released by its owner by the time we look
    },
    complete: async () => ({ kind: 'ok' as const }),
    release: async () => ({ kind: 'ok' as const }),
    commit: async () => {
      throw new Error('not used');
    },
    staleClaims: async () => [],
  };
  return s;
}

/** An EventBridge handler that waits for in-progress duplicates, with these wait bounds. */
function waitingHandler(store: IdempotencyStore, wait: Partial<WaitPolicy>) {
  return middy<OrderPaid, unknown>()
    .use(eventBridgeIdempotency<OrderPaid>({ store, consumer: 'c', key: (e) => e.detail.orderNo, inProgress: 'wait', wait, logger: false }))
    .handler(async () => 'ran');
}

describe('eventBridgeIdempotency inProgress "wait"', () => {
  it('gives up after wait.maxMs in total, not maxMs per round of claim-and-wait', async () => {
    const store = churningStore();
    const handler = waitingHandler(store, { maxMs: 300, initialDelayMs: 50, maxDelayMs: 100 });
    const started = Date.now();
    const outcome = await handler(
      eventBridgeEvent({ detailType: 'OrderPaid', source: 's', detail: { orderNo: 'hot' } }),
      lambdaContext({ functionName: 'f', timeoutMs: 4_000 }),
    ).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(outcome).toBeInstanceOf(IdempotencyInProgressError);
    // maxMs is 300: allow generous slack, but not the whole Lambda time.
    expect(elapsed).toBeLessThan(1_000);
    expect(store.claims).toBeGreaterThanOrEqual(2); // it did re-claim between waits, and still stopped in time
  }, 10_000);
});

describe('transaction builder item identity', () => {
  it('two different ArrayBuffer (binary) keys are two items, not "the same item"', () => {
    const tx = new TransactionBuilder();
    const a = new Uint8Array([1, 2, 3]).buffer;
    const b = new Uint8Array([9, 9, 9]).buffer;
    tx.update({ TableName: 'blobs', Key: { pk: a }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } });
    expect(() =>
      tx.update({ TableName: 'blobs', Key: { pk: b }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } }),
    ).not.toThrow();
    expect(tx.size).toBe(2);
  });

  it('the store re-check does not refuse two different DataView keys either', () => {
    const own = { tableName: 'idem', id: 'c#k', item: { id: 'c#k', status: 'COMPLETED' } };
    const k1 = new DataView(new Uint8Array([1]).buffer);
    const k2 = new DataView(new Uint8Array([2]).buffer);
    expect(() =>
      checkTransactionLimits(own, [
        { Delete: { TableName: 'blobs', Key: { pk: k1 } } },
        { Delete: { TableName: 'blobs', Key: { pk: k2 } } },
      ]),
    ).not.toThrow();
  });

  it('accepts a bigint key value (the DocumentClient marshalls bigint as a number)', () => {
    const tx = new TransactionBuilder();
    expect(() =>
      tx.update({ TableName: 'ledger', Key: { pk: 2n ** 64n }, UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 } }),
    ).not.toThrow();
  });

  it('a number key and a string key holding the same digits stay two items (kept: identity by type)', () => {
    const tx = new TransactionBuilder({ keySchema: { t: ['pk'] } });
    tx.put({ TableName: 't', Item: { pk: 1 } });
    expect(() => tx.put({ TableName: 't', Item: { pk: '1' } })).not.toThrow();
    expect(() => tx.delete({ TableName: 't', Key: { pk: 1 } })).toThrow(/same item/);
  });
});

describe('cancellation decoding (kept: index mapping and wire-format items)', () => {
  it('business reasons are re-indexed from the handler actions and their ALL_OLD items unmarshalled', () => {
    const verdict = classifyCancellation([
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed', Item: { pk: { S: 'o1' }, status: { S: 'PAID' }, version: { N: '2' } } },
    ]);
    expect(verdict).toEqual({
      kind: 'business',
      reasons: [
        { index: 0, code: 'None' },
        { index: 1, code: 'ConditionalCheckFailed', item: { pk: 'o1', status: 'PAID', version: 2 } },
      ],
    });
  });

  it('the idempotency condition wins over a business one and keeps the wire-format record', () => {
    const item = { id: { S: 'c#k' }, status: { S: 'COMPLETED' }, expiresAt: { N: '1900000000' } };
    expect(classifyCancellation([{ Code: 'ConditionalCheckFailed', Item: item }, { Code: 'ConditionalCheckFailed' }])).toEqual({
      kind: 'idempotency',
      item,
    });
  });
});

describe('undefined inside nested options counts as absent, like at the top level', () => {
  it('eventBridgeIdempotency({ wait: { maxMs: undefined } }) keeps the default maxMs (the wait still ends)', async () => {
    const store = churningStore();
    const handler = waitingHandler(store, { maxMs: undefined as unknown as number, initialDelayMs: 50, maxDelayMs: 100 });
    const started = Date.now();
    const outcome = await handler(
      eventBridgeEvent({ detailType: 'OrderPaid', source: 's', detail: { orderNo: 'hot' } }),
      lambdaContext({ functionName: 'f', timeoutMs: 1_500 }),
    ).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(IdempotencyInProgressError);
    expect(Date.now() - started).toBeLessThan(3_000);
  }, 10_000);

  it('sqsIdempotency({ lease: { capMs: undefined } }) keeps the default cap', async () => {
    const store = churningStore();
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store,
          consumer: 'c',
          key: () => 'k',
          logger: false,
          lease: { floorMs: 1_000, capMs: undefined as unknown as number },
        }),
      )
      .handler(eachRecord(() => undefined));
    await handler(sqsEvent([sqsRecord({ body: 'x' })]), lambdaContext({ functionName: 'f', timeoutMs: 10_000_000 }));
    expect(store.leases).toEqual([15 * 60_000]);
  });
});

describe('state helpers refuse inputs that would misreport duplicates', () => {
  it('transition with `to` among `from` is a TypeError (a duplicate would apply again)', async () => {
    const { transitionAction } = await import('../../src/index.js');
    expect(() => transitionAction({ tableName: 'orders', key: { pk: 'o1' }, from: ['PENDING', 'PAID'], to: 'PAID' })).toThrow(
      /also in from/,
    );
  });
  it('versionedUpdate with an empty set is a TypeError (another writer’s bump would read as already)', async () => {
    const { versionedUpdateAction } = await import('../../src/index.js');
    expect(() => versionedUpdateAction({ tableName: 'carts', key: { pk: 'c1' }, expectVersion: 1, set: {} })).toThrow(
      /at least one attribute/,
    );
  });
});
