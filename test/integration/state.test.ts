import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  transition,
  transitionAction,
  transitionFailure,
  versionedUpdate,
  versionedUpdateAction,
  versionedUpdateFailure,
} from '../../src/strategies/transaction/state.js';
import { TransactionBuilder } from '../../src/strategies/transaction/builder.js';
import { businessTable, freshTable, testDynamo } from '../support/dynamodb.js';
import { countRequests } from '../support/store.js';

interface Order extends Record<string, unknown> {
  pk: string;
  status: string;
  version?: number;
  paidAt?: number;
}

const { client, doc } = testDynamo();
const second = testDynamo().doc;
const requests = countRequests(doc);
let table: string;
let n = 0;

beforeAll(async () => {
  table = await freshTable(client, businessTable, 'state');
});

/** A fresh order item; `version` omitted means an item never versioned. */
async function order(status: string, extra: Record<string, unknown> = {}): Promise<string> {
  const pk = `order-${++n}`;
  await doc.send(new PutCommand({ TableName: table, Item: { pk, status, ...extra } }));
  return pk;
}

async function read(pk: string): Promise<Record<string, unknown> | undefined> {
  return (await doc.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }))).Item;
}

async function cancellation(promise: Promise<unknown>): Promise<TransactionCanceledException> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransactionCanceledException);
  return err as TransactionCanceledException;
}

describe('transition', () => {
  it('applied: moves the state, writes set, bumps the version, returns the new item', async () => {
    const pk = await order('PENDING');
    const r = await transition<Order>(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', set: { paidAt: 123 } });
    expect(r).toEqual({ kind: 'applied', item: { pk, status: 'PAID', paidAt: 123, version: 1 } });
    const again = await transition(doc, { tableName: table, key: { pk }, from: 'PAID', to: 'SHIPPED' });
    expect(again.kind === 'applied' && again.item['version']).toBe(2);
    expect(await read(pk)).toEqual({ pk, status: 'SHIPPED', paidAt: 123, version: 2 });
  });

  it('already: the item is in the target state, nothing written', async () => {
    const pk = await order('PAID', { version: 4 });
    requests.reset();
    const r = await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', set: { paidAt: 1 } });
    expect(requests.commands).toEqual(['UpdateItemCommand']); // decided from ALL_OLD: no second read
    expect(r).toEqual({ kind: 'already', item: { pk, status: 'PAID', version: 4 } });
    expect(await read(pk)).toEqual({ pk, status: 'PAID', version: 4 });
  });

  it('conflict: another state, with the current item', async () => {
    const pk = await order('CANCELLED', { version: 2 });
    requests.reset();
    const r = await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID' });
    expect(requests.commands).toEqual(['UpdateItemCommand']);
    expect(r).toEqual({ kind: 'conflict', item: { pk, status: 'CANCELLED', version: 2 } });
  });

  it('missing: no item, and none created', async () => {
    const r = await transition(doc, { tableName: table, key: { pk: 'no-such-order' }, from: 'PENDING', to: 'PAID' });
    expect(r).toEqual({ kind: 'missing' });
    expect(await read('no-such-order')).toBeUndefined();
  });

  it('from as a list', async () => {
    const pk = await order('NEW');
    const r = await transition(doc, { tableName: table, key: { pk }, from: ['PENDING', 'NEW'], to: 'PAID' });
    expect(r.kind).toBe('applied');
  });

  it('expectVersion: a match applies, a mismatch is a conflict', async () => {
    const pk = await order('PENDING', { version: 3 });
    const stale = await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', expectVersion: 2 });
    expect(stale).toEqual({ kind: 'conflict', item: { pk, status: 'PENDING', version: 3 } });
    const fresh = await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', expectVersion: 3 });
    expect(fresh.kind === 'applied' && fresh.item['version']).toBe(4);
    const dup = await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', expectVersion: 3 });
    expect(dup.kind).toBe('already');
  });

  it('expectVersion 0 matches an item that was never versioned', async () => {
    const pk = await order('PENDING');
    expect((await transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID', expectVersion: 0 })).kind).toBe('applied');
  });

  it('works with custom (and reserved-word) state and version attributes', async () => {
    const pk = await order('x', { state: 'OPEN' });
    const r = await transition(doc, {
      tableName: table,
      key: { pk },
      from: 'OPEN',
      to: 'CLOSED',
      stateAttribute: 'state',
      versionAttribute: 'size',
      set: { 'closed.at': 1 },
    });
    expect(r).toEqual({ kind: 'applied', item: { pk, status: 'x', state: 'CLOSED', size: 1, 'closed.at': 1 } });
  });

  it('two concurrent transitions to the same target: one applied, one already', async () => {
    const pk = await order('PENDING');
    const input = { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID' };
    const results = await Promise.all([transition(doc, input), transition(second, input)]);
    expect(results.map((r) => r.kind).sort()).toEqual(['already', 'applied']);
    expect(await read(pk)).toEqual({ pk, status: 'PAID', version: 1 });
  });

  it('two concurrent transitions to different targets: one applied, one conflict', async () => {
    const pk = await order('PENDING');
    const results = await Promise.all([
      transition(doc, { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID' }),
      transition(second, { tableName: table, key: { pk }, from: 'PENDING', to: 'CANCELLED' }),
    ]);
    expect(results.map((r) => r.kind).sort()).toEqual(['applied', 'conflict']);
    const winner = results.find((r) => r.kind === 'applied');
    const loser = results.find((r) => r.kind === 'conflict');
    expect(loser?.kind === 'conflict' && loser.item).toEqual(winner?.kind === 'applied' && winner.item);
  });
});

describe('versionedUpdate', () => {
  it('applied at the expected version, bumping it', async () => {
    const pk = await order('OPEN', { version: 2, total: 1 });
    const r = await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 2, set: { total: 5 } });
    expect(r).toEqual({ kind: 'applied', item: { pk, status: 'OPEN', version: 3, total: 5 } });
  });

  it('expectVersion 0 applies to an unversioned item', async () => {
    const pk = await order('OPEN');
    expect((await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 0, set: { total: 1 } })).kind).toBe('applied');
  });

  it('a duplicate of the same update is already; a different one is a conflict with the current item', async () => {
    const pk = await order('OPEN', { version: 2, total: 1 });
    await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 2, set: { total: 5 } });
    const dup = await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 2, set: { total: 5 } });
    expect(dup.kind).toBe('already');
    const other = await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 2, set: { total: 6 } });
    expect(other).toEqual({ kind: 'conflict', item: { pk, status: 'OPEN', version: 3, total: 5 } });
  });

  it('a stored map { value: "2" } is not the number 2: an update never applied is a conflict, not already', async () => {
    const pk = await order('OPEN', { version: 1, total: { value: '2' } });
    const r = await versionedUpdate(doc, { tableName: table, key: { pk }, expectVersion: 0, set: { total: 2 } });
    expect(r).toEqual({ kind: 'conflict', item: { pk, status: 'OPEN', version: 1, total: { value: '2' } } });
    expect(await read(pk)).toEqual({ pk, status: 'OPEN', version: 1, total: { value: '2' } });
  });

  it('with a wrapNumbers client, the same update already applied is still already (numbers read back as NumberValue)', async () => {
    const wrapped = DynamoDBDocumentClient.from(testDynamo().client, { unmarshallOptions: { wrapNumbers: true } }); // its own client: `from` shares the middleware stack
    const pk = await order('OPEN');
    expect((await versionedUpdate(wrapped, { tableName: table, key: { pk }, expectVersion: 0, set: { total: 2 } })).kind).toBe('applied');
    const again = await versionedUpdate(wrapped, { tableName: table, key: { pk }, expectVersion: 0, set: { total: 2 } });
    expect(again.kind).toBe('already');
    const other = await versionedUpdate(wrapped, { tableName: table, key: { pk }, expectVersion: 0, set: { total: { value: '2' } } });
    expect(other.kind).toBe('conflict');
  });

  it('missing when there is no item', async () => {
    expect(await versionedUpdate(doc, { tableName: table, key: { pk: 'none' }, expectVersion: 0, set: { a: 1 } })).toEqual({
      kind: 'missing',
    });
    expect(await read('none')).toBeUndefined();
  });
});

describe('transition and versionedUpdate in a transaction', () => {
  it('commits the transition and a Put atomically', async () => {
    const pk = await order('PENDING');
    const points = `points-${pk}`;
    const tx = new TransactionBuilder()
      .transition({ tableName: table, key: { pk }, from: 'PENDING', to: 'PAID' })
      .put({ TableName: table, Item: { pk: points, points: 10 } });
    await doc.send(new TransactWriteCommand({ TransactItems: [...tx.items()] }));
    expect(await read(pk)).toEqual({ pk, status: 'PAID', version: 1 });
    expect(await read(points)).toEqual({ pk: points, points: 10 });
  });

  it('writes nothing when the transition is refused; the reason decodes to already or conflict', async () => {
    const paid = await order('PAID', { version: 1 });
    const cancelled = await order('CANCELLED', { version: 1 });
    for (const [pk, expected] of [
      [paid, 'already'],
      [cancelled, 'conflict'],
    ] as const) {
      const input = { tableName: table, key: { pk }, from: 'PENDING', to: 'PAID' };
      const points = `points-${pk}`;
      const err = await cancellation(
        doc.send(
          new TransactWriteCommand({ TransactItems: [transitionAction(input), { Put: { TableName: table, Item: { pk: points } } }] }),
        ),
      );
      const [first, other] = err.CancellationReasons ?? [];
      expect(first && transitionFailure(first, input)).toEqual({ kind: expected, item: await read(pk) });
      expect(other && transitionFailure(other, input)).toBeUndefined();
      expect(await read(points)).toBeUndefined();
    }
  });

  it('decodes a missing item and a versioned-update conflict from the reasons', async () => {
    const pk = await order('OPEN', { version: 5 });
    const gone = { tableName: table, key: { pk: 'gone' }, from: 'PENDING', to: 'PAID' };
    const locked = { tableName: table, key: { pk }, expectVersion: 4, set: { total: 1 } };
    const err = await cancellation(
      doc.send(new TransactWriteCommand({ TransactItems: [transitionAction(gone), versionedUpdateAction(locked)] })),
    );
    const [a, b] = err.CancellationReasons ?? [];
    expect(a && transitionFailure(a, gone)).toEqual({ kind: 'missing' });
    expect(b && versionedUpdateFailure(b, locked)).toEqual({ kind: 'conflict', item: { pk, status: 'OPEN', version: 5 } });
    // The library's own reason shape (BusinessConflictError.reasons) decodes the same way.
    expect(transitionFailure({ index: 0, code: 'ConditionalCheckFailed' }, gone)).toEqual({ kind: 'missing' });
  });
});
