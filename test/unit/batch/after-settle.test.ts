/**
 * The SQS plug-ins are the objects their factories made, and the lifecycle
 * never acknowledges a record no after-settle step accounted for: a
 * look-alike `deadLetter` whose step returns no outcomes once made the batch
 * answer `batchItemFailures: []`, losing a permanent failure sent nowhere.
 */
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { backoff, deadLetter, eachRecord, PermanentError, sqsIdempotency } from '../../../src/index.js';
import { batchIdempotency, type AfterSettle } from '../../../src/batch/middleware.js';
import { commonDefaults } from '../../../src/batch/options.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import type { RecordOutcome } from '../../../src/engine/outcomes.js';
import { claim } from '../../../src/strategies/claim/claim.js';
import { sqsSource } from '../../../src/sources/sqs/adapter.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

const sqs = { send: async () => ({}) };
const base = { store: new MemoryIdempotencyStore(), key: (r: SQSRecord) => r.body, logger: false as const };

describe('deadLetter and backoff take only what their factories return', () => {
  it.each([
    ['deadLetter', () => deadLetter({ sqs })],
    ['backoff', () => backoff({ sqs })],
  ] as const)('%s: a spread copy or an object with the same keys is a TypeError naming the option', (name, make) => {
    const real = make();
    expect(() => sqsIdempotency({ ...base, [name]: real })).not.toThrow();
    const copy = { ...real };
    const lookAlike = { plugin: name, afterSettle: async (o: readonly RecordOutcome[]) => ({ outcomes: o }), chain: real.chain };
    for (const fake of [copy, lookAlike]) {
      expect(() => sqsIdempotency({ ...base, [name]: fake as never })).toThrow(
        new TypeError(`sqsIdempotency: option "${name}" must be what ${name}() returns (that object itself, not a copy), got object.`),
      );
    }
  });

  it('a real plug-in cannot be changed after it was made (its step is the one its factory gave it)', () => {
    const real = deadLetter({ sqs }) as { afterSettle: unknown };
    expect(() => {
      real.afterSettle = async () => ({ outcomes: [] });
    }).toThrow(TypeError);
  });
});

/** The SQS lifecycle with `step` as its after-settle step; a record whose body starts with `perm` throws a PermanentError. */
function withStep(step: AfterSettle<SQSRecord>) {
  const store = new MemoryIdempotencyStore();
  const lines: BatchLogLine[] = [];
  const config = {
    ...commonDefaults,
    store,
    consumer: 'c',
    key: (r: SQSRecord) => r.body,
    payload: false as const,
    storeResult: false,
    logger: (line: BatchLogLine) => void lines.push(line),
    autoSafetyMargin: { maxMs: 0, fraction: 0 },
  };
  const handler = middy<SQSEvent, SQSBatchResponse>()
    .use(
      batchIdempotency(sqsSource, {
        ...config,
        owner: 'sqsIdempotency',
        afterSettle: step,
        steps: claim().batch({ ...config, owner: 'sqsIdempotency' }),
      }),
    )
    .handler(
      eachRecord((r) => {
        if (r.body.startsWith('perm')) throw new PermanentError('never');
      }) as (e: SQSEvent, c: Context) => Promise<SQSBatchResponse>,
    );
  return { handler, lines };
}

describe('the lifecycle acknowledges only what a step accounted for', () => {
  const records = () => [sqsRecord({ body: 'perm-1' }), sqsRecord({ body: 'ok-1' })];

  it('a step that returns no outcomes: the permanent failure comes back, the completed record stays acknowledged, the line warns', async () => {
    const { handler, lines } = withStep(async () => ({ outcomes: [] }));
    const [perm, ok] = records();
    const response = await handler(sqsEvent([perm, ok] as SQSRecord[]), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: perm?.messageId }]);
    expect(lines[0]?.records.map((r) => r.outcome)).toEqual(['failed', 'completed']);
    expect(lines[0]?.level).toBe('WARN');
    expect(lines[0]?.warnings?.join(' ')).toMatch(/after-settle step returned no outcome for 2 records/);
  });

  it('a step that turns a failure into an acknowledged outcome other than dead-lettered, or answers another record: ignored', async () => {
    const { handler } = withStep(async (outcomes) => ({
      outcomes: [
        ...outcomes.map((o): RecordOutcome => (o.kind === 'failed' ? { kind: 'completed', messageId: o.messageId, key: o.key } : o)),
        { kind: 'completed', messageId: 'someone-else', key: 'x' },
      ],
    }));
    const [perm, ok] = records();
    const response = await handler(sqsEvent([perm, ok] as SQSRecord[]), lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: perm?.messageId }]);
  });

  it('a step that dead-letters a failure (the DLQ took a copy): acknowledged, as before', async () => {
    const { handler, lines } = withStep(async (outcomes) => ({
      outcomes: outcomes.map(
        (o): RecordOutcome =>
          o.kind === 'failed' ? { kind: 'dead-lettered', messageId: o.messageId, was: 'failed', error: o.error, dlqMessageId: 'd-1' } : o,
      ),
    }));
    const response = await handler(sqsEvent(records()), lambdaContext());
    expect(response.batchItemFailures).toEqual([]);
    expect(lines[0]?.counts['dead-lettered']).toBe(1);
    expect(lines[0]?.warnings).toBeUndefined();
  });
});
