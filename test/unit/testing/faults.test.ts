import { describe, expect, it } from 'vitest';
import { CrashPoint, Deferred, ManualClock, checkpoint, crashAfter, delay, flaky, invoke } from '../../../src/testing/index.js';
import { SimulatedCrash, SimulatedFailure } from '../../../src/testing/errors.js';

/** Lets every pending promise continuation run (one macrotask turn). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('crashAfter', () => {
  it('lets n hits pass, crashes the next invocation, then lets the retry pass', async () => {
    const crash = crashAfter(2);
    const effects: number[] = [];
    const handler = async (event: { n: number }): Promise<number> => {
      await crash.hit();
      effects.push(event.n);
      return event.n;
    };
    const outcomes = [];
    for (let n = 1; n <= 4; n += 1) outcomes.push((await invoke(handler, { n })).kind);
    expect(outcomes).toEqual(['returned', 'returned', 'crashed', 'returned']);
    expect(effects).toEqual([1, 2, 4]);
    expect(crash.crashes).toBe(1);
    expect(crash.hits).toBe(4);
    await expect(crash.crashed).resolves.toBeInstanceOf(SimulatedCrash);
  });

  it('crashes `times` invocations in a row', async () => {
    const crash = crashAfter(0, { times: 2 });
    const handler = async (): Promise<string> => {
      await crash.hit();
      return 'done';
    };
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push((await invoke(handler, {})).kind);
    expect(outcomes).toEqual(['crashed', 'crashed', 'returned']);
  });

  it('ends the invocation at once even while other work of it is still pending', async () => {
    const crash = crashAfter(0);
    const never = new Deferred<void>();
    const handler = async (): Promise<void> => {
      await Promise.all([never.promise, crash.hit()]);
    };
    const result = await invoke(handler, {});
    expect(result.kind).toBe('crashed');
  });

  it('rejects a negative n with a TypeError naming it', () => {
    expect(() => crashAfter(-1)).toThrow(/"n"/);
  });
});

describe('a crashed invocation stops as a killed process would', () => {
  it('another record of the crashed invocation, still running, stops at its next crash point (no effect, no hit)', async () => {
    const crash = new CrashPoint(0); // the first hit crashes
    const slowClaim = new Deferred<void>();
    const effects: string[] = [];
    const record = async (key: string, before: Promise<void>): Promise<void> => {
      await before; // e.g. its claim, slower than its sibling's
      await crash.hit();
      effects.push(key);
    };
    const result = await invoke(async () => {
      await Promise.all([record('slow', slowClaim.promise), record('fast', Promise.resolve())]);
    }, {});
    expect(result.kind).toBe('crashed');
    slowClaim.resolve(); // the sibling's claim returns after the process died
    await settle();
    expect(effects).toEqual([]);
    expect(crash.hits).toBe(1);
  });

  it('the invocation is dead from the moment it crashes: a sibling’s checkpoint in the same turn stops', async () => {
    const crash = new CrashPoint(0);
    const effects: string[] = [];
    const result = await invoke(async () => {
      await Promise.all([
        crash.hit(),
        (async () => {
          await null; // one step behind the crash
          await checkpoint();
          effects.push('sibling');
        })(),
      ]);
    }, {});
    expect(result.kind).toBe('crashed');
    await settle();
    expect(effects).toEqual([]);
  });

  it('a delay of a crashed invocation never ends', async () => {
    const clock = new ManualClock();
    const crash = new CrashPoint(0);
    const effects: string[] = [];
    const result = await invoke(async () => {
      await Promise.all([
        crash.hit(),
        (async () => {
          await delay(10, clock);
          effects.push('after the delay');
        })(),
      ]);
    }, {});
    expect(result.kind).toBe('crashed');
    await settle();
    expect(effects).toEqual([]);
  });
});

describe('flaky', () => {
  it('fails the first failTimes calls per key, then succeeds', () => {
    const transient = flaky({ failTimes: 2 });
    expect(() => transient.hit('a')).toThrow(SimulatedFailure);
    expect(() => transient.hit('b')).toThrow(SimulatedFailure);
    expect(() => transient.hit('a')).toThrow(/attempt 2/);
    expect(() => transient.hit('a')).not.toThrow();
    expect(transient.attempts('a')).toBe(3);
    expect(transient.attempts('b')).toBe(1);
    expect(transient.failures).toBe(3);
  });

  it('throws the given error, or the one the factory makes', () => {
    const fixed = new Error('ECONNRESET');
    expect(() => flaky({ failTimes: 1, error: fixed }).hit('k')).toThrow(fixed);
    const made = flaky({ failTimes: 1, error: (key, attempt) => new RangeError(`${key}#${attempt}`) });
    expect(() => made.hit('k')).toThrow(new RangeError('k#1'));
  });

  it('wraps a function, keyed by its arguments', async () => {
    const transient = flaky({ failTimes: 1 });
    const charge = transient.wrap(
      async (orderNo: string, cents: number) => `${orderNo}:${cents}`,
      (orderNo) => orderNo,
    );
    await expect(charge('o-1', 100)).rejects.toBeInstanceOf(SimulatedFailure);
    await expect(charge('o-1', 100)).resolves.toBe('o-1:100');
    await expect(charge('o-2', 5)).rejects.toBeInstanceOf(SimulatedFailure);
  });
});

describe('delay', () => {
  it('moves a manual clock instead of sleeping', async () => {
    const clock = new ManualClock(0);
    const started = Date.now();
    await delay(3_600_000, clock);
    expect(clock.now()).toBe(3_600_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('sleeps in real time without a clock', async () => {
    const started = performance.now();
    await delay(20);
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('rejects a negative delay', async () => {
    await expect(delay(-1)).rejects.toThrow(TypeError);
  });
});

describe('Deferred', () => {
  it('orders two concurrent invocations at a chosen point', async () => {
    const order: string[] = [];
    const firstClaimed = new Deferred<void>();
    const secondDone = new Deferred<string>();
    const first = (async () => {
      order.push('first claims');
      firstClaimed.resolve();
      order.push(`first sees ${await secondDone.promise}`);
    })();
    const second = (async () => {
      await firstClaimed.promise;
      order.push('second runs');
      secondDone.resolve('second done');
    })();
    await Promise.all([first, second]);
    expect(order).toEqual(['first claims', 'second runs', 'first sees second done']);
    expect(firstClaimed.settled).toBe(true);
  });

  it('exposes reject', async () => {
    const deferred = new Deferred<number>();
    expect(deferred.settled).toBe(false);
    deferred.reject(new Error('nope'));
    await expect(deferred.promise).rejects.toThrow('nope');
  });
});
