/**
 * Schema validation of record bodies through sqsIdempotency + eachRecord on
 * DynamoDB Local: a body that fails its schema is an invalid record, alone
 * in batchItemFailures, with the schema's issues in the log line; in a FIFO
 * group it holds back the records behind it.
 */
import { describe, expect, it } from 'vitest';
import { jsonBody, transaction } from '../../../src/index.js';
import { SchemaValidationError } from '../../../src/engine/errors.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import type { StandardSchemaV1 } from '../../../src/engine/standard-schema.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order } from './harness.js';

interface Order {
  readonly orderNo: string;
  readonly amount: number;
}

// Hand-written Standard Schema v1 object: no validation library needed.
const OrderSchema: StandardSchemaV1<unknown, Order> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate(value) {
      const v = value as Partial<Order> | null;
      if (typeof v?.amount !== 'number') return { issues: [{ message: 'expected a number', path: [{ key: 'amount' }] }] };
      return { value: { orderNo: String(v.orderNo), amount: v.amount } };
    },
  },
};

describe('jsonBody(record, schema) in eachRecord', () => {
  it('a body failing its schema in the handler is invalid, alone in batchItemFailures, its issues in the log line', async () => {
    const h = await harness();
    const good = order('s-good', { amount: 5 });
    const bad = order('s-bad', { amount: 'five' });
    const seen: number[] = [];
    const fn: RecordHandler = (record) => {
      seen.push(jsonBody(record, OrderSchema).amount);
    };
    const response = await h.handler(fn)(sqsEvent([good, bad]), h.context());
    expect(failedIds(response)).toEqual([bad.messageId]);
    expect(seen).toEqual([5]);
    const entry = h.lines.at(-1)?.records.find((r) => r.messageId === bad.messageId);
    expect(entry).toMatchObject({ outcome: 'invalid', error: { name: 'SchemaValidationError' } });
    expect(entry?.error?.message).toContain('amount: expected a number');
    // Released: nothing is recorded for the bad record, the good one is completed.
    expect(await h.store.get(h.store.recordId('test', 's-bad'))).toBeUndefined();
    expect((await h.store.get(h.store.recordId('test', 's-good')))?.status).toBe('COMPLETED');
  });

  it('a body failing its schema in the key function is invalid before any claim', async () => {
    const h = await harness();
    const good = order('k-good', { amount: 1 });
    const bad = order('k-bad', { amount: null });
    const key = (r: Parameters<typeof jsonBody>[0]) => `${jsonBody(r, OrderSchema).orderNo}`;
    const response = await h.handler(undefined, { key })(sqsEvent([good, bad]), h.context());
    expect(failedIds(response)).toEqual([bad.messageId]);
    expect(h.effects.get('k-good')).toBe(1);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === bad.messageId)).toMatchObject({
      outcome: 'invalid',
      error: { name: 'SchemaValidationError' },
    });
  });

  it('transaction strategy: a schema failure in the handler is invalid and commits nothing', async () => {
    const h = await harness();
    const good = order('t-good', { amount: 2 });
    const bad = order('t-bad', { amount: 'x' });
    const fn: RecordHandler = (record) => {
      jsonBody(record, OrderSchema);
    };
    const response = await h.handler(fn, { strategy: transaction() })(sqsEvent([good, bad]), h.context());
    expect(failedIds(response)).toEqual([bad.messageId]);
    expect(h.lines.at(-1)?.records.find((r) => r.messageId === bad.messageId)).toMatchObject({ outcome: 'invalid' });
    expect(await h.store.get(h.store.recordId('test', 't-bad'))).toBeUndefined();
    expect((await h.store.get(h.store.recordId('test', 't-good')))?.status).toBe('COMPLETED');
  });

  it('FIFO: an invalid record holds back the rest of its group; other groups go on', async () => {
    const h = await harness();
    const a1 = order('f-a1', { amount: 'bad' }, { groupId: 'A' });
    const a2 = order('f-a2', { amount: 1 }, { groupId: 'A' });
    const b1 = order('f-b1', { amount: 1 }, { groupId: 'B' });
    const ran: string[] = [];
    const fn: RecordHandler = (record, { key }) => {
      jsonBody(record, OrderSchema);
      ran.push(key);
    };
    const response = await h.handler(fn)(sqsEvent([a1, a2, b1]), h.context());
    expect(failedIds(response).sort()).toEqual([a1.messageId, a2.messageId].sort());
    expect(ran).toEqual(['f-b1']);
    expect(h.lines.at(-1)?.counts).toMatchObject({ invalid: 1, 'not-started': 1, completed: 1 });
  });

  it('the error carries the issues', () => {
    const record = order('e-1', { amount: [] });
    const thrown = (() => {
      try {
        jsonBody(record, OrderSchema);
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(SchemaValidationError);
    expect((thrown as SchemaValidationError).issues).toEqual([{ message: 'expected a number', path: [{ key: 'amount' }] }]);
  });
});
