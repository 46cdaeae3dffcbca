/**
 * Crash points in the pipeline (`crashingStore`) through the real middleware
 * and store on DynamoDB Local: each point leaves the table in the state a
 * killed Lambda would, and the redelivery recovers without a second effect
 * where the strategy promises none.
 */
import { describe, expect, it } from 'vitest';
import { invoke, sqsEvent, crashingStore } from '../../../src/testing/index.js';
import { harness, order } from '../sqs/harness.js';
import { transaction } from '../../../src/index.js';

describe('crashingStore', () => {
  it('after-claim: the handler never runs and the claim stays IN_PROGRESS until its lease ends', async () => {
    const h = await harness();
    const store = crashingStore(h.store, { probability: { 'after-claim': 1 } });
    const event = sqsEvent([order('o-claim')]);
    const result = await invoke(h.handler(undefined, { store }), event, { context: h.context() });
    expect(result.kind).toBe('crashed');
    expect(h.effects.size).toBe(0);
    expect(store.crashes).toEqual([{ point: 'after-claim', id: 'test#o-claim' }]);
    expect((await h.store.get('test#o-claim'))?.status).toBe('IN_PROGRESS');
    // Past the lease, the redelivery takes the claim over and runs the effect once.
    h.clock.advance(16 * 60_000);
    const retry = await invoke(h.handler(undefined, { store }), sqsEvent([order('o-claim')]), { context: h.context() });
    expect(retry.kind).toBe('returned');
    expect(h.effects.get('o-claim')).toBe(1);
  });

  it('before-complete (claim strategy): the effect happened, the completion was never written', async () => {
    const h = await harness();
    const store = crashingStore(h.store, { probability: { 'before-complete': 1 } });
    const result = await invoke(h.handler(undefined, { store }), sqsEvent([order('o-effect')]), { context: h.context() });
    expect(result.kind).toBe('crashed');
    expect(h.effects.get('o-effect')).toBe(1);
    expect((await h.store.get('test#o-effect'))?.status).toBe('IN_PROGRESS');
  });

  it('after-complete: the response is lost, the redelivery is acknowledged as a duplicate', async () => {
    const h = await harness();
    const store = crashingStore(h.store, { probability: { 'after-complete': 1 } });
    const first = await invoke(h.handler(undefined, { store }), sqsEvent([order('o-done')]), { context: h.context() });
    expect(first.kind).toBe('crashed');
    expect((await h.store.get('test#o-done'))?.status).toBe('COMPLETED');
    const again = await invoke(h.handler(undefined, { store }), sqsEvent([order('o-done')]), { context: h.context() });
    expect(again.kind).toBe('returned');
    if (again.kind === 'returned') expect(again.value.batchItemFailures).toEqual([]);
    expect(h.effects.get('o-done')).toBe(1);
    expect(store.crashes).toHaveLength(1); // maxPerRecord 1: the redelivery passes
  });

  it('before-complete (transaction strategy): nothing is written, the retry commits once', async () => {
    const h = await harness();
    const store = crashingStore(h.store, { probability: { 'before-complete': 1 } });
    const handler = h.handler(undefined, { store, strategy: transaction() });
    expect((await invoke(handler, sqsEvent([order('o-tx')]), { context: h.context() })).kind).toBe('crashed');
    expect(await h.store.get('test#o-tx')).toBeUndefined();
    expect((await invoke(handler, sqsEvent([order('o-tx')]), { context: h.context() })).kind).toBe('returned');
    expect((await h.store.get('test#o-tx'))?.status).toBe('COMPLETED');
  });

  it('the rest of a crashed batch stops at its next store call, as a killed process would', async () => {
    const h = await harness();
    // Only o-a's completion crashes; o-b and o-c run after it (concurrency 1).
    const store = crashingStore(h.store, { seed: 1, probability: { 'after-complete': 1 }, maxPerRecord: 1 });
    const event = sqsEvent([order('o-a'), order('o-b'), order('o-c')]);
    const result = await invoke(h.handler(undefined, { store }, { concurrency: 1 }), event, { context: h.context() });
    expect(result.kind).toBe('crashed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect([...h.effects.keys()]).toEqual(['o-a']);
    expect((await h.store.get('test#o-b'))?.status).toBe('IN_PROGRESS');
  });

  it('rejects an unknown crash point', async () => {
    const h = await harness();
    expect(() => crashingStore(h.store, { probability: { 'mid-air': 0.5 } as never })).toThrow(/probability/);
  });
});
