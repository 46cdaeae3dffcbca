/**
 * A key whose copies lead two FIFO message groups of one batch, on DynamoDB
 * Local (the unit twin: test/unit/batch/fifo-cross-group.test.ts): its first
 * copy held back unrun in its own group (behind a bad record, or behind a
 * record whose handler fails) must not stand in the way of its copy in the
 * other group, which runs, once, in its group's order. Each batch is delivered
 * three times, as a FIFO queue redelivers what comes back.
 */
import { describe, expect, it } from 'vitest';
import type { SQSRecord } from 'aws-lambda';
import { claim } from '../../../src/index.js';
import type { ClaimsMode } from '../../support/strategy.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import type { Strategy } from '../../../src/batch/options.js';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { failedIds, harness, order } from './harness.js';
import { strategyOf } from '../../support/strategy.js';

const FIFO_ARN = 'arn:aws:sqs:us-east-1:123456789012:orders.fifo';

type Mode = { readonly strategy: Strategy; readonly claims?: ClaimsMode };
const MODES: readonly Mode[] = [{ strategy: 'claim' }, { strategy: 'claim', claims: 'pipelined' }, { strategy: 'transaction' }];

async function deliverThrice(mode: Mode, records: readonly SQSRecord[], poison?: string) {
  const h = await harness();
  const ran = new Map<string, number>();
  const fn: RecordHandler = (record, { key }) => {
    if (record.messageId === poison) throw new Error('poison');
    ran.set(key, (ran.get(key) ?? 0) + 1);
  };
  const handler = h.handler(fn, { strategy: mode.claims === 'pipelined' ? claim({ pipelined: true }) : strategyOf(mode.strategy) });
  const deliveries: { outcomes: Record<string, string>; failed: string[] }[] = [];
  for (let i = 0; i < 3; i++) {
    const response = await handler(sqsEvent([...records]), h.context());
    const outcomes = Object.fromEntries(h.lines.at(-1)?.records.map((r) => [r.messageId, r.outcome]) ?? []);
    deliveries.push({ outcomes, failed: failedIds(response) });
  }
  const status = async (key: string) => (await h.store.get(h.store.recordId('test', key)))?.status;
  return { deliveries, ran, status };
}

describe.each(MODES)('FIFO, a key led in two groups ($strategy strategy, $claims claims)', (mode) => {
  it('a bad record at the head of group B: the copy in group A runs ([BAD@B, K#1@B, K#2@A])', async () => {
    const key = `xg-bad-${mode.strategy}-${mode.claims ?? 'batch'}`;
    const bad = sqsRecord({ body: '{"orderNo": broken', queueArn: FIFO_ARN, groupId: 'B' });
    const k1 = order(key, {}, { groupId: 'B' });
    const k2 = order(key, {}, { groupId: 'A' });
    const { deliveries, ran, status } = await deliverThrice(mode, [bad, k1, k2]);
    const [first, , last] = deliveries;
    expect(first?.outcomes).toEqual({ [bad.messageId]: 'invalid', [k1.messageId]: 'not-started', [k2.messageId]: 'completed' });
    expect(first?.failed).toEqual([bad.messageId, k1.messageId]);
    expect(last?.outcomes[k2.messageId]).toBe('duplicate');
    expect(await status(key)).toBe('COMPLETED');
    if (mode.strategy === 'claim') expect(Object.fromEntries(ran)).toEqual({ [key]: 1 });
  });

  it('a poison record at the head of group B: group A runs whole, once ([P@B, K#1@B, K#2@A, X@A])', async () => {
    const tag = `${mode.strategy}-${mode.claims ?? 'batch'}`;
    const [kKey, xKey] = [`xg-k-${tag}`, `xg-x-${tag}`];
    const p = order(`xg-p-${tag}`, {}, { groupId: 'B' });
    const k1 = order(kKey, {}, { groupId: 'B' });
    const k2 = order(kKey, {}, { groupId: 'A' });
    const x = order(xKey, {}, { groupId: 'A' });
    const { deliveries, ran, status } = await deliverThrice(mode, [p, k1, k2, x], p.messageId);
    const [first, , last] = deliveries;
    expect(first?.outcomes).toEqual({
      [p.messageId]: 'failed',
      [k1.messageId]: 'not-started',
      [k2.messageId]: 'completed',
      [x.messageId]: 'completed',
    });
    // Later: the claim finds K done before anything runs, so K#1 is a known duplicate, acknowledged even behind P.
    expect(last?.failed).toEqual(mode.strategy === 'claim' ? [p.messageId] : [p.messageId, k1.messageId]);
    expect(last?.outcomes[k2.messageId]).toBe('duplicate');
    expect(await status(kKey)).toBe('COMPLETED');
    expect(await status(xKey)).toBe('COMPLETED');
    if (mode.strategy === 'claim') expect(Object.fromEntries(ran)).toEqual({ [kKey]: 1, [xKey]: 1 });
  });
});
