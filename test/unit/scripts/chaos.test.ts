/**
 * The chaos run's pure parts: the command line, and how a trace explains an
 * effect that was not followed by its completion.
 */
import { describe, expect, it } from 'vitest';
import { chaosDefaults, ChaosUsageError, parseChaosArgs } from '../../../scripts/chaos/options.js';
import { documentedWindow, InvocationTrace, Traces } from '../../../scripts/chaos/trace.js';

describe('parseChaosArgs', () => {
  it('takes the defaults, and --seed / --seeds / --messages as given', () => {
    expect(parseChaosArgs([])).toMatchObject({ ...chaosDefaults, json: false, progress: true, help: false });
    expect(parseChaosArgs(['--seed', '9', '--seeds', '20', '--messages', '5000', '--json', '--no-progress'])).toMatchObject({
      seed: 9,
      seeds: 20,
      messages: 5000,
      json: true,
      progress: false,
    });
  });

  it('refuses unknown options and bad numbers with a ChaosUsageError that names them', () => {
    expect(() => parseChaosArgs(['--sead', '1'])).toThrow(ChaosUsageError);
    expect(() => parseChaosArgs(['--messages', '0'])).toThrow(/--messages must be an integer from 1/);
    expect(() => parseChaosArgs(['--seeds', '2.5'])).toThrow(/--seeds/);
    expect(() => parseChaosArgs(['--seed', ''])).toThrow(/--seed/);
  });
});

describe('InvocationTrace.unconfirmedCause', () => {
  it('names why an effect has no completion after it, in order of evidence', () => {
    const trace = new InvocationTrace('notifications');
    trace.effects.push('a', 'b', 'c', 'd');
    trace.completed.add('a');
    trace.refused.add('b');
    trace.failed.add('c');
    expect(trace.unconfirmedCause('a')).toBeUndefined();
    expect(trace.unconfirmedCause('b')).toBe('completion refused (lease lost)');
    expect(trace.unconfirmedCause('c')).toBe('completion failed');
    expect(trace.unconfirmedCause('d')).toBe('killed by its timeout'); // never settled, no crash recorded
    trace.settled = true;
    expect(trace.unconfirmedCause('d')).toBe('unexplained');
    trace.crashPoint = 'after-claim';
    expect(trace.unconfirmedCause('d')).toBe('crash after the effect');
  });

  it('keeps a lease lost and the unexplained outside the documented window', () => {
    expect(documentedWindow.has('completion refused (lease lost)')).toBe(false);
    expect(documentedWindow.has('unexplained')).toBe(false);
    expect(documentedWindow.has('crash after the effect')).toBe(true);
  });
});

describe('Traces', () => {
  it('gives each invocation its own trace, also across awaits, and marks it settled when it returns', async () => {
    const traces = new Traces();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([
      traces.run('notifications', async () => {
        await tick();
        traces.current()?.effects.push('x');
      }),
      traces.run('notifications', async () => {
        traces.current()?.effects.push('y');
        await tick();
        traces.current()?.completed.add('y');
      }),
    ]);
    expect(traces.all.map((t) => t.effects)).toEqual([['x'], ['y']]);
    expect(traces.all.every((t) => t.settled)).toBe(true);
    expect([...traces.unconfirmed('notifications')]).toEqual([['x', ['unexplained']]]);
    expect(traces.current()).toBeUndefined();
  });
});
