/**
 * `invoke`: how a simulated invocation ends, and that the work a killed
 * invocation leaves behind stops as a dead Lambda's would.
 */
import { describe, expect, it } from 'vitest';
import { checkpoint, invoke, ManualClock } from '../../../src/testing/index.js';
import { invocationKilled } from '../../../src/testing/invocation.js';

describe('invoke', () => {
  it('a handler that returns past its timeout (by the clock) is timed out, and its leftover work is killed', async () => {
    const clock = new ManualClock();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let leftover: Promise<boolean> = Promise.resolve(false);
    const handler = async (): Promise<string> => {
      // A record still running when the handler answers (e.g. Middy's early-timeout response).
      leftover = (async () => {
        await gate;
        return invocationKilled();
      })();
      clock.advance(101);
      return 'answered late';
    };
    const result = await invoke(handler, {}, { timeoutMs: 100, clock });
    expect(result.kind).toBe('timed-out');
    open();
    // Lambda killed this invocation: what it left running must stop at its next checkpoint.
    expect(await leftover).toBe(true);
  });

  it('a handler that returns within its timeout leaves its invocation alive', async () => {
    const clock = new ManualClock();
    let after: Promise<boolean> = Promise.resolve(true);
    const result = await invoke(
      async () => {
        after = (async () => {
          await checkpoint();
          return invocationKilled();
        })();
        clock.advance(99);
        return 'in time';
      },
      {},
      { timeoutMs: 100, clock },
    );
    expect(result.kind).toBe('returned');
    expect(await after).toBe(false);
  });
});
