/**
 * Chaos for group commit (issue 12, item 1): the chaos run's group-commit
 * consumer (scripts/chaos/group-commit.ts) under a heavier fault mix. A
 * standard queue drained by two pollers at once (racing invocations),
 * producer re-sends, TransactionConflict, throttling, network errors before
 * and after the write, crashes before and after a group commit, through the
 * real middleware with `strategy: transaction()` and group commit on,
 * against DynamoDB Local. Every invariant must hold, and the faults that
 * matter must have fired: group commits sent, some cancelled by one
 * record's condition and read per record, conflicts, crashes.
 */
import { describe, expect, inject, it } from 'vitest';
import { runGroupCommitChaos } from '../../scripts/chaos/group-commit.js';
import { defaultRates } from '../../scripts/chaos/plan.js';

describe('chaos: group commit under faults, crashes and racing invocations', () => {
  it('applies each order exactly once, acknowledges nothing without its effect, and the conflict and cancellation faults fire', async () => {
    const rates = {
      ...defaultRates,
      transactionConflict: 0.15,
      throttle: 0.05,
      networkBefore: 0.03,
      networkAfter: 0.05,
      crashBeforeComplete: 0.04,
      crashAfterComplete: 0.04,
    };
    const { row, faults } = await runGroupCommitChaos({ seed: 12, orders: 80, endpoint: inject('dynamodbEndpoint'), rates });
    expect(row.invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`)).toEqual([]);
    expect(row.ok).toBe(true);
    expect(row.applied + row.deadLettered).toBe(row.events);
    expect(row.deadLettered).toBeLessThanOrEqual(2);
    expect(faults.groups).toBeGreaterThan(0);
    expect(faults.cancelledByCondition).toBeGreaterThan(0);
    expect(faults.conflicts).toBeGreaterThan(0);
    expect(faults.crashes).toBeGreaterThan(0);
    // Every fourth order is re-sent: the container's duplicate rate turns the probe on ('auto').
    expect(faults.probes).toBeGreaterThan(0);
  });
});
