/**
 * The chaos verdict on hand-made end states: each invariant holds on a clean
 * run and breaks on the state that violates it.
 */
import { describe, expect, it } from 'vitest';
import type { ChaosObservations } from '../../../scripts/chaos/harness.js';
import { strategyRows, type StrategyRow } from '../../../scripts/chaos/invariants.js';
import { Traces } from '../../../scripts/chaos/trace.js';
import type { DlqEntry } from '../../../scripts/local/dlq.js';
import type { LocalRunReport } from '../../../scripts/local/report.js';
import { newSourceStats } from '../../../scripts/local/stats.js';
import { invoke, ManualClock } from '../../../src/testing/index.js';

const ORDERS = ['o-1', 'o-2', 'o-3'];
const NOTES = ORDERS.map((o) => `n-${o}`);

interface EndState {
  neverPaid?: string[];
  withoutPoints?: string[];
  neverSent?: string[];
  dlq?: Partial<Record<'payments' | 'notifications' | 'points', DlqEntry[]>>;
  balanceMismatches?: string[];
  threw?: number;
  /** PAID orders without exactly one OrderPaid outbox event / effect in points. */
  paidWithoutOneEvent?: string[];
  paidWithoutOneEffect?: string[];
  unpublished?: string[];
  relayGivenUp?: number;
}

function poison(_queue: 'payments' | 'notifications', n: number): DlqEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    messageId: `p${i}`,
    body: 'x',
    key: undefined,
    defect: 'bad',
    reason: 'invalid',
    receiveCount: 5,
  }));
}

function valid(key: string, reason: string): DlqEntry {
  return { messageId: `m-${key}`, body: key, key, defect: undefined, reason, receiveCount: 5 };
}

/** A report with only what the verdict reads; everything applied once unless `state` says otherwise. */
function report(state: EndState = {}): LocalRunReport {
  const neverPaid = state.neverPaid ?? [];
  const payments = { ...newSourceStats(), handlerErrors: state.threw ?? 0 };
  return {
    effects: {
      orders: {
        expected: ORDERS.length,
        paid: ORDERS.length - neverPaid.length,
        transitionsApplied: 3,
        paidMoreThanOnce: [],
        neverPaid,
        wronglyPaid: [],
      },
      points: {
        expected: 3,
        ledgerItems: 3,
        ordersWithoutPoints: state.withoutPoints ?? [],
        unexpectedLedger: [],
        wrongPoints: [],
        customers: 1,
        balanceMismatches: state.balanceMismatches ?? [],
      },
      notifications: { expected: NOTES.length, sent: 3, sentMoreThanOnce: [], neverSent: state.neverSent ?? [] },
      outbox: {
        paid: ORDERS.length - neverPaid.length,
        outboxItems: ORDERS.length - neverPaid.length,
        unpublished: state.unpublished ?? [],
        paidWithoutOneEvent: state.paidWithoutOneEvent ?? [],
        paidWithoutOneEffect: state.paidWithoutOneEffect ?? [],
        relayInvocations: 2,
        givenUp: state.relayGivenUp ?? 0,
      },
    },
    sources: { payments, notifications: newSourceStats(), points: newSourceStats() },
    dlq: {
      payments: [...poison('payments', 4), ...(state.dlq?.payments ?? [])],
      notifications: [...poison('notifications', 2), ...(state.dlq?.notifications ?? [])],
      points: state.dlq?.points ?? [],
    },
    leftInQueues: { 'payments.fifo': 0, notifications: 0, 'points async invocations': 0 },
    poisonPlanned: { payments: 4, notifications: 2 },
  } as unknown as LocalRunReport;
}

function observations(
  traces = new Traces(),
  acked: Partial<Record<'payments' | 'notifications' | 'points', string[]>> = {},
): ChaosObservations {
  const zero = { throttle: 0, 'transaction-conflict': 0, 'network-before': 0, 'network-after': 0, latency: 0 };
  const none = { 'after-claim': 0, 'before-complete': 0, 'after-complete': 0 };
  return {
    dynamodb: { injected: zero, surfaced: zero },
    crashes: { payments: none, notifications: none, points: none },
    relayCrashes: { 'after-put-events': 0, 'before-mark': 0 },
    deliveredTwice: { payments: 0, notifications: 0 },
    shortTimeouts: { payments: 0, notifications: 0 },
    slowEffects: 0,
    acknowledged: {
      payments: new Set(acked.payments ?? []),
      notifications: new Set(acked.notifications ?? []),
      points: new Set(acked.points ?? []),
    },
    traces,
  };
}

const rowOf = (rows: StrategyRow[], strategy: StrategyRow['strategy']) => rows.find((r) => r.strategy === strategy) as StrategyRow;
const invariant = (row: StrategyRow, prefix: string) => row.invariants.find((i) => i.name.startsWith(prefix));

describe('strategyRows', () => {
  it('a clean end state passes every invariant of every strategy', () => {
    const rows = strategyRows(report(), observations());
    expect(rows.map((r) => [r.strategy, r.ok])).toEqual([
      ['state machine', true],
      ['transaction', true],
      ['claim', true],
      ['outbox', true],
    ]);
  });

  it('an event neither applied nor dead-lettered is lost; one in a DLQ with a reason is not', () => {
    const lost = rowOf(strategyRows(report({ neverSent: ['n-o-2'] }), observations()), 'claim');
    expect(lost.lost).toBe(1);
    expect(invariant(lost, 'no loss')?.ok).toBe(false);
    const parked = rowOf(
      strategyRows(report({ neverSent: ['n-o-2'], dlq: { notifications: [valid('n-o-2', 'failed 5 times')] } }), observations()),
      'claim',
    );
    expect([parked.lost, parked.deadLettered, parked.ok]).toEqual([0, 1, true]);
  });

  it('two DLQ copies of one missing event (the original and a re-sent copy) count it once as dead-lettered', () => {
    const dlq = { notifications: [valid('n-o-2', 'timed out'), valid('n-o-2', 'timed out')] };
    const row = rowOf(strategyRows(report({ neverSent: ['n-o-2'], dlq }), observations()), 'claim');
    expect([row.applied + row.deadLettered, row.lost, row.ok]).toEqual([row.events, 0, true]);
  });

  it('a points event is never parked upstream: with the outbox, a PAID order has its event whatever its payment became', () => {
    // Before the outbox, a payment dead-lettered after its transition "parked" the event in the payments DLQ.
    const rows = strategyRows(report({ withoutPoints: ['o-3'], dlq: { payments: [valid('o-3', 'in-progress')] } }), observations());
    const points = rowOf(rows, 'transaction');
    expect([points.lost, points.deadLettered, points.ok]).toEqual([1, 0, false]);
  });

  it('outbox: a PAID order without exactly one event, or one effect in points, breaks it; so does a payment dead-lettered after its transition with no event', () => {
    const noEvent = rowOf(strategyRows(report({ paidWithoutOneEvent: ['o-2'] }), observations()), 'outbox');
    expect(invariant(noEvent, 'every PAID order has exactly one OrderPaid effect')?.ok).toBe(false);
    const noEffect = rowOf(strategyRows(report({ paidWithoutOneEffect: ['o-1'] }), observations()), 'outbox');
    expect([noEffect.applied, noEffect.lost, noEffect.ok]).toEqual([2, 1, false]);
    const deadLettered = rowOf(
      strategyRows(report({ paidWithoutOneEvent: ['o-3'], dlq: { payments: [valid('o-3', 'timed out')] } }), observations()),
      'outbox',
    );
    expect(invariant(deadLettered, 'no payment dead-lettered after its transition without its event')?.ok).toBe(false);
    const parkedWithEvent = rowOf(strategyRows(report({ dlq: { payments: [valid('o-3', 'timed out')] } }), observations()), 'outbox');
    expect(invariant(parkedWithEvent, 'no payment dead-lettered after its transition without its event')?.ok).toBe(true);
  });

  it('outbox: an event still PENDING or given up by the relay breaks "every outbox event published"', () => {
    expect(invariant(rowOf(strategyRows(report({ unpublished: ['outbox#1'] }), observations()), 'outbox'), 'every outbox event')?.ok).toBe(
      false,
    );
    const givenUp = rowOf(strategyRows(report({ relayGivenUp: 1 }), observations()), 'outbox');
    expect([givenUp.deadLettered, invariant(givenUp, 'every outbox event')?.ok]).toEqual([1, false]);
  });

  it('a doubled balance breaks the transaction strategy; acknowledging a missing effect breaks any', () => {
    expect(rowOf(strategyRows(report({ balanceMismatches: ['c-1'] }), observations()), 'transaction').ok).toBe(false);
    const acked = rowOf(
      strategyRows(report({ neverPaid: ['o-1'], dlq: { payments: [valid('o-1', 'x')] } }), observations(undefined, { payments: ['o-1'] })),
      'state machine',
    );
    expect(invariant(acked, 'no ack')?.ok).toBe(false);
  });

  it('an invocation that threw fails "no batch failed as a whole"', () => {
    const row = rowOf(strategyRows(report({ threw: 1 }), observations()), 'state machine');
    expect(invariant(row, 'no batch')?.ok).toBe(false);
  });

  it('claim: a second send after a crash is in the window; after a refused completion it is not', async () => {
    const crashed = new Traces();
    await crashed.run('notifications', async () => {
      crashed.current()?.effects.push('notifications#n-o-1');
      const t = crashed.current();
      if (t !== undefined) t.crashPoint = 'before-complete';
    });
    await crashed.run('notifications', async () => {
      crashed.current()?.effects.push('notifications#n-o-1');
      crashed.current()?.completed.add('notifications#n-o-1');
    });
    const inWindow = rowOf(strategyRows(report(), observations(crashed)), 'claim');
    expect([inWindow.doubleEffects, inWindow.doublesInWindow, inWindow.ok]).toEqual([1, 1, true]);

    const fenced = new Traces();
    await fenced.run('notifications', async () => {
      fenced.current()?.effects.push('notifications#n-o-1');
      fenced.current()?.refused.add('notifications#n-o-1');
    });
    await fenced.run('notifications', async () => {
      fenced.current()?.effects.push('notifications#n-o-1');
      fenced.current()?.completed.add('notifications#n-o-1');
    });
    const outside = rowOf(strategyRows(report(), observations(fenced)), 'claim');
    expect([outside.doubleEffects, outside.doublesInWindow, outside.ok]).toEqual([1, 0, false]);
  });

  it('claim: a handler that settles after its invocation was killed by its timeout is in the window, not unexplained', async () => {
    // Under load the function timeout can kill the invocation while a record's
    // completion is in flight (it then never returns), and Middy's early-timeout
    // response settles the handler afterwards: the trace must still say "killed".
    const traces = new Traces();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let handlerDone: Promise<void> = Promise.resolve();
    const handler = () => {
      handlerDone = traces.run('notifications', async () => {
        traces.current()?.effects.push('notifications#n-o-1');
        await gate;
      });
      return handlerDone;
    };
    const result = await invoke(handler, {}, { timeoutMs: 20 });
    expect(result.kind).toBe('timed-out');
    open();
    await handlerDone;
    await traces.run('notifications', async () => {
      traces.current()?.effects.push('notifications#n-o-1');
      traces.current()?.completed.add('notifications#n-o-1');
    });
    expect(traces.unconfirmed('notifications').get('notifications#n-o-1')).toEqual(['killed by its timeout']);
    const row = rowOf(strategyRows(report(), observations(traces)), 'claim');
    expect([row.doubleEffects, row.doublesInWindow, row.ok]).toEqual([1, 1, true]);
  });

  it('claim: a handler that answers past its timeout is killed after it settled: its unconfirmed effect is in the window', async () => {
    // The handler answers (a record's completion still in flight), but past the
    // function timeout by the clock: invoke kills the invocation after it settled.
    const traces = new Traces();
    const clock = new ManualClock();
    const handler = () =>
      traces.run('notifications', async () => {
        traces.current()?.effects.push('notifications#n-o-1');
        clock.advance(101);
      });
    const result = await invoke(handler, {}, { timeoutMs: 100, clock });
    expect(result.kind).toBe('timed-out');
    await traces.run('notifications', async () => {
      traces.current()?.effects.push('notifications#n-o-1');
      traces.current()?.completed.add('notifications#n-o-1');
    });
    expect(traces.unconfirmed('notifications').get('notifications#n-o-1')).toEqual(['killed by its timeout']);
    const row = rowOf(strategyRows(report(), observations(traces)), 'claim');
    expect([row.doubleEffects, row.doublesInWindow, row.ok]).toEqual([1, 1, true]);
  });
});
