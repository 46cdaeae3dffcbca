/**
 * FIFO failure propagation end to end: random FIFO batches through
 * `sqsIdempotency` + `eachRecord` on DynamoDB Local, with records whose
 * handler fails, whose key another invocation holds, or whose key is already
 * done. Per message group, everything from the first record that comes back
 * onwards comes back too (duplicates aside, see below), nothing after it runs
 * or keeps a claim, and the other groups are untouched.
 */
import fc from 'fast-check';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { RecordHandler } from '../../src/batch/runner-link.js';
import type { Strategy } from '../../src/batch/options.js';
import { sqsEvent } from '../../src/testing/index.js';
import { failedIds, harness, order } from '../integration/sqs/harness.js';
import { seeded } from './seed.js';
import { strategyOf } from '../support/strategy.js';

/** ok: runs and succeeds; fails: the handler throws; held: another invocation holds the key; done: completed before. */
type Fate = 'ok' | 'fails' | 'held' | 'done';
interface Planned {
  readonly group: string;
  readonly fate: Fate;
}

const batchArb = fc.array(
  fc.record({ group: fc.constantFrom('A', 'B', 'C'), fate: fc.constantFrom<Fate>('ok', 'ok', 'ok', 'fails', 'held', 'done') }),
  {
    minLength: 1,
    maxLength: 10,
  },
);

let seq = 0;
// One table for every run: keys are unique across runs, so runs cannot see each other.
const harnessOnce = harness();

async function runBatch(strategy: Strategy, plan: readonly Planned[], concurrency: number) {
  const h = await harnessOnce;
  const keys = plan.map(() => `o-${(seq += 1)}`);
  for (const [i, p] of plan.entries()) {
    const key = keys[i] as string;
    if (p.fate === 'held' || p.fate === 'done') {
      const claim = await h.store.claim({ consumer: 'test', key, leaseMs: 600_000 });
      if (claim.kind === 'claimed' && p.fate === 'done') await h.store.complete({ id: claim.id, token: claim.token });
    }
  }
  const records: SQSRecord[] = plan.map((p, i) => order(keys[i] as string, {}, { groupId: p.group }));
  const calls: number[] = [];
  const fn: RecordHandler = (_r, { key }) => {
    const i = keys.indexOf(key);
    calls.push(i);
    if (plan[i]?.fate === 'fails') throw new Error(`record ${i} fails`);
  };
  const failed = new Set(
    failedIds(await h.handler(fn, { strategy: strategyOf(strategy) }, { concurrency })(sqsEvent(records), h.context())),
  );
  return { h, keys, records, calls, failed };
}

/** Index (in the batch) of each record of `group`, and where that group is cut: its first failing or held record. */
function groupOf(plan: readonly Planned[], group: string) {
  const members = plan.flatMap((p, i) => (p.group === group ? [i] : []));
  const cutAt = members.find((i) => plan[i]?.fate === 'fails' || plan[i]?.fate === 'held');
  return { members, cutAt: cutAt ?? Infinity };
}

describe.each<Strategy>(['claim', 'transaction'])('FIFO batches, %s strategy', (strategy) => {
  it('per group: from the first record that comes back, every later record comes back and none runs; other groups run on, in order', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb, fc.integer({ min: 1, max: 4 }), async (plan, concurrency) => {
        const { h, keys, records, calls, failed } = await runBatch(strategy, plan, concurrency);
        for (const group of ['A', 'B', 'C']) {
          const { members, cutAt } = groupOf(plan, group);
          for (const i of members) {
            const fate = plan[i]?.fate;
            // Claim strategy: a key already done is settled as a duplicate before anything runs, so it
            // leaves the queue wherever it stands. Transaction strategy: it is found done only when it
            // runs, so behind a cut it is held back like any other record.
            const returns = i >= cutAt && !(strategy === 'claim' && fate === 'done');
            expect(failed.has(records[i]?.messageId ?? ''), `${group} record ${i} (${fate})`).toBe(returns);
            if (i > cutAt && fate !== 'held' && fate !== 'done') {
              expect(await h.store.get(h.store.recordId('test', keys[i] as string))).toBeUndefined(); // no claim left behind
            }
          }
          // The handler saw this group's records in batch order, and none behind the cut.
          const ranHere = calls.filter((i) => plan[i]?.group === group);
          const mayRun = (i: number) => strategy === 'transaction' || (plan[i]?.fate !== 'held' && plan[i]?.fate !== 'done');
          expect(ranHere).toEqual(members.filter((i) => i <= cutAt && mayRun(i)));
        }
      }),
      seeded(10),
    );
  });
});
