import { describe, expect, it } from 'vitest';
import { EffectClock, rotation } from '../../../bench/measure.js';

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
