import { describe, expect, it } from 'vitest';
import { runLanes, toLanes } from '../../../src/batch/schedule.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('toLanes', () => {
  it('keeps input order inside a lane and gives unnamed items lanes of their own', () => {
    const lanes = toLanes(['a1', 'x', 'b1', 'a2', 'y', 'b2'], (s) => (s.length === 2 ? s[0] : undefined));
    expect(lanes).toEqual([['a1', 'a2'], ['x'], ['b1', 'b2'], ['y']]);
  });
});

describe('runLanes', () => {
  it('never runs more lanes at once than the limit', async () => {
    let running = 0;
    let peak = 0;
    await runLanes(
      Array.from({ length: 12 }, (_, i) => i),
      {
        concurrency: 3,
        laneOf: () => undefined,
        run: async () => {
          running += 1;
          peak = Math.max(peak, running);
          await tick();
          running -= 1;
          return true;
        },
        skip: () => undefined,
      },
    );
    expect(peak).toBe(3);
  });

  it('stops a lane at its first failure and skips the rest in order; other lanes go on', async () => {
    const ran: string[] = [];
    const skipped: string[] = [];
    await runLanes(['a1', 'b1', 'a2', 'b2', 'a3', 'b3'], {
      concurrency: 2,
      laneOf: (s) => s[0],
      run: async (s) => {
        ran.push(s);
        await tick();
        return s !== 'a2';
      },
      skip: (s) => skipped.push(s),
    });
    expect(ran.filter((s) => s.startsWith('a'))).toEqual(['a1', 'a2']);
    expect(ran.filter((s) => s.startsWith('b'))).toEqual(['b1', 'b2', 'b3']);
    expect(skipped).toEqual(['a3']);
  });
});
