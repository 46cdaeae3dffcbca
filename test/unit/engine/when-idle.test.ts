import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WhenIdle } from '../../../src/engine/when-idle.js';

function gate() {
  const waiting: string[] = [];
  const sent: string[][] = [];
  const idle = new WhenIdle(
    () => waiting.length > 0,
    () => sent.push(waiting.splice(0)),
  );
  return { waiting, sent, idle };
}

describe('WhenIdle', () => {
  it('sends nothing while a handler runs, then everything waiting in one flush, one turn after the last handler', async () => {
    const { waiting, sent, idle } = gate();
    let release: () => void = () => {};
    const slow = idle.running(() => new Promise<void>((resolve) => (release = resolve)));
    await idle.running(async () => {
      waiting.push('a');
      idle.schedule();
    });
    await nextTurn();
    expect(sent).toEqual([]); // the slow handler still runs
    waiting.push('b');
    idle.schedule();
    release();
    await slow;
    expect(sent).toEqual([]); // not in the same turn: a lane may start its next handler first
    await nextTurn();
    expect(sent).toEqual([['a', 'b']]);
  });

  it('a handler started before the turn ends holds the flush back', async () => {
    const { waiting, sent, idle } = gate();
    await idle.running(async () => {
      waiting.push('a');
    });
    // The next record of the lane starts in a microtask, before the turn the flush waits for.
    const next = idle.running(async () => {
      await nextTurn();
      await nextTurn();
    });
    await nextTurn();
    expect(sent).toEqual([]);
    await next;
    await nextTurn();
    expect(sent).toEqual([['a']]);
  });

  it('flushes nothing when nothing waits, and schedules one flush however often it is asked', async () => {
    const { waiting, sent, idle } = gate();
    await idle.running(async () => {});
    await nextTurn();
    expect(sent).toEqual([]);
    waiting.push('a');
    idle.schedule();
    idle.schedule();
    await nextTurn();
    await nextTurn();
    expect(sent).toEqual([['a']]);
  });
});
