/**
 * Group commit's packing (stores/dynamodb/group-plan.ts) and its rounds (stores/dynamodb/group-commit.ts)
 * with a scripted `TransactWriteItems`: no DynamoDB needed for what the
 * cancellation reasons decide.
 */
import { describe, expect, it } from 'vitest';
import { planGroups } from '../../../src/stores/dynamodb/group-plan.js';
import { commitInRounds, type GroupCommitIO, type PreparedCommit } from '../../../src/stores/dynamodb/group-commit.js';
import type { CommitResult } from '../../../src/engine/store.js';

const candidate = (items: string[], actions = items.length, bytes = 100) => ({ items, actions, bytes });

describe('planGroups', () => {
  it('packs first-fit within 100 actions; a candidate touching an item already taken this round is deferred', () => {
    const plan = planGroups([candidate(['a', 'x'], 60), candidate(['b'], 50), candidate(['c', 'x'], 2), candidate(['d'], 40)]);
    expect(plan.groups).toEqual([[0, 3], [1]]);
    expect(plan.deferred).toEqual([2]);
  });

  it('keeps each group under the byte limit, and a solo candidate alone', () => {
    const plan = planGroups([candidate(['a'], 1, 3), candidate(['b'], 1, 3), { ...candidate(['c']), solo: true }, candidate(['d'], 1, 1)], {
      actions: 100,
      bytes: 5,
    });
    expect(plan.groups).toEqual([[0, 3], [1], [2]]);
    expect(plan.deferred).toEqual([]);
  });
});

const prepared = (index: number, actions = 2): PreparedCommit => ({
  index,
  input: {
    consumer: 'c',
    key: `k${index}`,
    actions: Array.from({ length: actions - 1 }, () => ({ Put: { TableName: 'biz', Item: { pk: `p${index}` } } })),
  },
  id: `c#k${index}`,
  now: 0,
  put: { Put: { TableName: 'idem', Item: { id: `c#k${index}` } } },
  footprint: { items: [`item-${index}`], actions, bytes: 10 },
});

const cancelled = (codes: string[]) =>
  Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });

function scripted(answers: Array<Error | undefined>) {
  const sent: number[] = [];
  const alone: number[] = [];
  const io: GroupCommitIO = {
    send: async (items) => {
      sent.push(items.length);
      const next = answers.shift();
      if (next !== undefined) throw next;
    },
    single: async (c) => {
      alone.push(c.index);
      return { kind: 'committed', id: c.id, record: { id: c.id, status: 'COMPLETED' } } as CommitResult;
    },
    refused: async (_err, reasons, c) => {
      if (reasons[0]?.Code === 'ConditionalCheckFailed')
        return { kind: 'duplicate', id: c.id, existing: { id: c.id, status: 'COMPLETED' }, fromCache: false } as CommitResult;
      throw new Error(`refused ${reasons.map((r) => r.Code).join(',')}`);
    },
    committed: (c) => ({ kind: 'committed', id: c.id, record: { id: c.id, status: 'COMPLETED' } }) as CommitResult,
  };
  return { io, sent, alone };
}

describe('commitInRounds', () => {
  it('a record whose own reasons name a failure is decided alone; those cancelled only with it go again together', async () => {
    // Each record: 1 action of ours + 1 action. Record 1's idempotency Put failed.
    const { io, sent, alone } = scripted([cancelled(['None', 'None', 'ConditionalCheckFailed', 'None', 'None', 'None'])]);
    const answers = await commitInRounds([prepared(0), prepared(1), prepared(2)], io);
    expect(sent).toEqual([6, 4]);
    expect(alone).toEqual([]);
    expect(answers.get(1)).toMatchObject({ kind: 'result', result: { kind: 'duplicate' } });
    expect(answers.get(0)).toMatchObject({ kind: 'result', result: { kind: 'committed' } });
    expect(answers.get(2)).toMatchObject({ kind: 'result', result: { kind: 'committed' } });
  });

  it('a TransactionConflict is that record’s error (its caller retries it with jitter); the others commit next round', async () => {
    const { io, sent } = scripted([cancelled(['TransactionConflict', 'None', 'None', 'None'])]);
    const answers = await commitInRounds([prepared(0), prepared(1)], io);
    expect(answers.get(0)).toMatchObject({ kind: 'error' });
    expect(answers.get(1)).toMatchObject({ kind: 'result', result: { kind: 'committed' } });
    expect(sent).toEqual([4]);
  });

  it('an error that does not say which record failed (no reasons, or all None): each record is sent alone', async () => {
    const network = Object.assign(new Error('socket hang up'), { name: 'Error' });
    const { io, sent, alone } = scripted([network]);
    const answers = await commitInRounds([prepared(0), prepared(1), prepared(2)], io);
    expect(sent).toEqual([6]);
    expect(alone).toEqual([0, 1, 2]);
    expect([...answers.values()].every((a) => a.kind === 'result')).toBe(true);

    const quiet = scripted([cancelled(['None', 'None', 'None', 'None'])]);
    await commitInRounds([prepared(0), prepared(1)], quiet.io);
    expect(quiet.alone).toEqual([0, 1]);
  });
});
