/**
 * Red-team acceptance: one SQS message delivered twice within one batch (the
 * same messageId, e.g. a standard queue's at-least-once delivery landing in
 * one poll). The lifecycle keeps the first copy of each record id at its
 * entry: the message is one delivery, run once and named once.
 */
import { describe, expect, it } from 'vitest';
import { sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order } from '../sqs/harness.js';
import { strategyOf } from '../../support/strategy.js';

const cases = [
  { strategy: 'claim', fifo: false },
  { strategy: 'claim', fifo: true },
  { strategy: 'transaction', fifo: false },
  { strategy: 'transaction', fifo: true },
] as const;

describe.each(cases)('acceptance: the same messageId twice in one batch (strategy $strategy, fifo $fifo)', ({ strategy, fifo }) => {
  // Before the fix the second copy was taken for a same-key follower of
  // itself: neither copy ran, both were reported (the same itemIdentifier
  // twice), and the leader's claim was never completed or released, so the
  // redelivery was refused as in-progress for a whole lease.
  it('runs the message once and leaves no claim behind', async () => {
    const h = await harness();
    const handler = h.handler(undefined, { strategy: strategyOf(strategy) });
    const record = order('o-1', {}, { fifo });
    const first = await handler(sqsEvent([record, { ...record }]), h.context());
    expect(h.effects.get('o-1')).toBe(1);
    expect(first.batchItemFailures).toEqual([]);
    const stored = await h.store.get(h.store.recordId('test', 'o-1'));
    expect(stored?.status).toBe('COMPLETED');
    // The log reports the message once, as the one delivery it is.
    expect(h.lines[0]?.records.map((r) => [r.messageId, r.outcome])).toEqual([[record.messageId, 'completed']]);
  });

  // Even when the effect cannot run in this batch, the claim must not outlive
  // the invocation: a redelivery of the message alone must run at once.
  it('a redelivery of the message alone runs at once (no claim left IN_PROGRESS)', async () => {
    const h = await harness();
    const handler = h.handler(undefined, { strategy: strategyOf(strategy) });
    const record = order('o-2', {}, { fifo });
    await handler(sqsEvent([record, { ...record }]), h.context());
    const again = await handler(sqsEvent([record]), h.context());
    expect(again.batchItemFailures).toEqual([]);
    // Acknowledged as the duplicate of the completed first run, not refused as in progress.
    expect(h.lines[1]?.records.map((r) => r.outcome)).toEqual(['duplicate']);
    // The transaction strategy runs the handler before its commit finds the record; claim does not run it again.
    expect(h.effects.get('o-2')).toBe(strategy === 'claim' ? 1 : 2);
  });

  it('names a failing repeated message once in batchItemFailures', async () => {
    const h = await harness();
    let runs = 0;
    const handler = h.handler(
      () => {
        runs += 1;
        throw new Error('boom');
      },
      { strategy: strategyOf(strategy) },
    );
    const record = order('o-3', {}, { fifo });
    const response = await handler(sqsEvent([record, { ...record }]), h.context());
    expect(failedIds(response)).toEqual([record.messageId]);
    expect(runs).toBe(1);
    // The failed claim was released: the redelivery runs (and fails) again at once.
    await handler(sqsEvent([record]), h.context());
    expect(runs).toBe(2);
  });
});
