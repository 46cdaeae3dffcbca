import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/random.js';
import { generateWorkload, pointsFor, type Delivery } from '../../../bench/workload.js';

const options = { events: 400, duplicateRate: 0.25, batchSize: 10, seed: 7 };

function batchOf(batches: ReadonlyArray<readonly Delivery[]>): Map<string, number[]> {
  const where = new Map<string, number[]>();
  batches.forEach((batch, b) => {
    for (const d of batch) where.set(d.event.orderNo, [...(where.get(d.event.orderNo) ?? []), b]);
  });
  return where;
}

describe('seededRandom', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(seqA);
    expect([c(), c(), c()]).not.toEqual(seqA);
    for (const x of seqA) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe('generateWorkload', () => {
  it('gives the same deliveries, message ids included, for the same options', () => {
    expect(generateWorkload(options)).toEqual(generateWorkload(options));
  });

  it('gives another workload for another seed', () => {
    const a = generateWorkload(options);
    const b = generateWorkload({ ...options, seed: 8 });
    expect(b.batches.flat().map((d) => d.event.orderNo)).not.toEqual(a.batches.flat().map((d) => d.event.orderNo));
  });

  it('delivers every event once plus the duplicates, in batches of at most batchSize', () => {
    const w = generateWorkload(options);
    const all = w.batches.flat();
    expect(w.events).toHaveLength(400);
    expect(w.duplicates).toBe(100);
    expect(all).toHaveLength(500);
    expect(w.deliveries).toBe(500);
    expect(all.filter((d) => d.duplicate)).toHaveLength(100);
    expect(new Set(all.map((d) => d.event.orderNo)).size).toBe(400);
    expect(new Set(all.map((d) => d.messageId)).size).toBe(500);
    for (const batch of w.batches) expect(batch.length).toBeLessThanOrEqual(10);
  });

  it('sends a duplicate in a later batch than its original, the same body under a new message id', () => {
    const w = generateWorkload(options);
    const firstBatch = new Map<string, number>();
    const original = new Map<string, Delivery>();
    w.batches.forEach((batch, b) => {
      for (const d of batch) {
        if (!d.duplicate) {
          firstBatch.set(d.event.orderNo, b);
          original.set(d.event.orderNo, d);
          continue;
        }
        const first = original.get(d.event.orderNo);
        expect(first, `original of ${d.event.orderNo} delivered before`).toBeDefined();
        expect(b).toBeGreaterThan(firstBatch.get(d.event.orderNo) ?? Number.POSITIVE_INFINITY);
        expect(JSON.stringify(d.event)).toBe(JSON.stringify(first?.event));
        expect(d.messageId).not.toBe(first?.messageId);
      }
    });
  });

  it('never puts one event twice in a batch, even with many duplicates', () => {
    const w = generateWorkload({ ...options, events: 50, duplicateRate: 3 });
    for (const [orderNo, batches] of batchOf(w.batches)) {
      expect(new Set(batches).size, orderNo).toBe(batches.length);
    }
  });

  it('adds the prefix to keys and message ids, and sums the expected points over unique events', () => {
    const w = generateWorkload({ ...options, prefix: 'w' });
    const all = w.batches.flat();
    expect(
      all.every((d) => d.event.orderNo.startsWith('wo-') && d.event.customerId.startsWith('wc-') && d.messageId.startsWith('wm-')),
    ).toBe(true);
    expect(w.expectedPoints).toBe(w.events.reduce((sum, e) => sum + Math.floor(e.amount / 10), 0));
    expect(pointsFor({ orderNo: 'o', customerId: 'c', amount: 129 })).toBe(12);
  });

  it('rejects a workload it cannot build', () => {
    expect(() => generateWorkload({ ...options, events: 0 })).toThrow(RangeError);
    expect(() => generateWorkload({ ...options, batchSize: 0 })).toThrow(RangeError);
    expect(() => generateWorkload({ ...options, duplicateRate: -0.1 })).toThrow(RangeError);
  });
});
