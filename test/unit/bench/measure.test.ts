import { describe, expect, it } from 'vitest';
import type { BatchHandler } from '../../../bench/contenders.js';
import type { CountedClient } from '../../../bench/dynamo.js';
import { EffectClock, type Lane, LoggedRequests, rotation, runBatch } from '../../../bench/measure.js';
import type { RequestPattern } from '../../../bench/stats.js';
import { type Variant, variants } from '../../../bench/variants.js';

describe('rotation', () => {
  it('lets every lane go first in turn', () => {
    const lanes = ['a', 'b', 'c'];
    expect(rotation(lanes, 0)).toEqual(['a', 'b', 'c']);
    expect(rotation(lanes, 1)).toEqual(['b', 'c', 'a']);
    expect(rotation(lanes, 5)).toEqual(['c', 'a', 'b']);
    expect(rotation([], 3)).toEqual([]);
  });
});

describe('EffectClock', () => {
  it('keeps the first effect of a batch and forgets it when the next batch starts', () => {
    const clock = new EffectClock();
    clock.start();
    expect(clock.firstMs).toBeNaN();
    clock.mark();
    const first = clock.firstMs;
    expect(first).toBeGreaterThanOrEqual(0);
    clock.mark();
    expect(clock.firstMs).toBe(first);
    clock.start();
    expect(clock.firstMs).toBeNaN();
  });
});

describe('LoggedRequests and runBatch: the request pattern of each batch, from its log line', () => {
  const tally = { requests: {}, units: 0, requestMs: 0, wru: 0, rru: 0 };
  const deliveries = [{ messageId: 'm-1', event: { orderNo: 'o-1', customerId: 'c-1', amount: 1 }, duplicate: false }];

  /** A lane whose handler logs the pattern the library would choose by the context's size (as ours' middleware does). */
  function lane(log: (memoryLimitInMB: string) => RequestPattern | undefined): Lane {
    const logged = new LoggedRequests();
    const handler: BatchHandler = async (_event, context) => {
      const requests = log(context.memoryLimitInMB);
      if (requests !== undefined) logged.line({ requests });
      return { batchItemFailures: [] };
    };
    const counted = { counter: { take: () => tally } } as unknown as CountedClient;
    return { variant: variants[0] as Variant, handler, counted, effects: new EffectClock(), logged, samples: [] };
  }

  it("hands each invocation the size as memoryLimitInMB and keeps what the batch's line named", async () => {
    const seen: string[] = [];
    const l = lane((mb) => {
      seen.push(mb);
      return Number(mb) >= 512 ? 'per-record' : 'batched';
    });
    expect((await runBatch(l, deliveries, 0, undefined, 1769)).requests).toBe('per-record');
    expect((await runBatch(l, deliveries, 0, undefined, 256)).requests).toBe('batched');
    expect(seen).toEqual(['1769', '256']);
  });

  it('leaves the pattern out of a batch whose line named none, and forgets the last batch', async () => {
    let next: RequestPattern | undefined = 'batched';
    const l = lane(() => next);
    expect((await runBatch(l, deliveries, 0, undefined, 256)).requests).toBe('batched');
    next = undefined;
    const sample = await runBatch(l, deliveries, 0, undefined, 256);
    expect(sample).not.toHaveProperty('requests');
  });
});
