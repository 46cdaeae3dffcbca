import { describe, expect, it } from 'vitest';
import { BENCH_CPU_SHARES, BENCH_NICE, niceWeight, raisePriority } from '../../../bench/priority.js';

describe('the priority ahead of the machine', () => {
  it("weighs a group as much as one of the bench's threads: CFS's weight of nice -15", () => {
    expect(niceWeight(0)).toBe(1024);
    expect(niceWeight(BENCH_NICE)).toBe(29154);
    expect(BENCH_CPU_SHARES).toBe(29154);
    expect(() => niceWeight(-21)).toThrow(RangeError);
  });

  it('renices every thread of the process, and says so; a refusal leaves the run going and says why', () => {
    const set: Array<[number, number]> = [];
    const raised = raisePriority(
      { cpuGroups: true },
      (tid, nice) => set.push([tid, nice]),
      () => [7, 8, 9],
    );
    expect(set).toEqual([
      [7, -15],
      [8, -15],
      [9, -15],
    ]);
    expect(raised).toMatchObject({ raised: true });
    expect(raised.words).toContain('cpu.shares 29,154');
    expect(
      raisePriority(
        { cpuGroups: false },
        () => {},
        () => [7],
      ).words,
    ).not.toContain('cpu.shares');
    const refused = raisePriority(
      { cpuGroups: true },
      () => {
        throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
      },
      () => [7],
    );
    expect(refused).toMatchObject({ raised: false });
    expect(refused.words).toContain('EACCES');
  });
});
