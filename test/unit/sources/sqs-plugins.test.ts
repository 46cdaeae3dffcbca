/**
 * The SQS plug-ins' chain: the middleware runs the steps of the plug-ins it
 * was given in order (the DLQ first), each on the outcomes the one before
 * left, and one log line holds both steps' fields (their `sqsErrors` joined).
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { RecordOutcome } from '../../../src/engine/outcomes.js';
import { chainSettleSteps, settlePlugin, settlePluginRule, type SqsSettlePlugin } from '../../../src/sources/sqs/plugins.js';

const failed = (messageId: string): RecordOutcome => ({ kind: 'failed', messageId, key: messageId, error: new Error('x') });
const context = { records: new Map<string, SQSRecord>(), consumer: 'c' };

describe('chainSettleSteps', () => {
  it('is undefined without a plug-in, so the middleware has no after-settle step', () => {
    expect(chainSettleSteps([undefined, undefined])).toBeUndefined();
  });

  it('runs the steps in order on what the step before left, joining their sqsErrors and warning if either warned', async () => {
    const seen: string[][] = [];
    const dlq: SqsSettlePlugin = {
      plugin: 'deadLetter',
      chain: chainSettleSteps,
      afterSettle: async (outcomes) => {
        seen.push(outcomes.map((o) => o.kind));
        const [first, ...rest] = outcomes;
        const dead: RecordOutcome = {
          messageId: 'a',
          key: 'a',
          kind: 'dead-lettered',
          was: 'failed',
          error: new Error('x'),
          dlqMessageId: 'd',
        };
        return {
          outcomes: first === undefined ? outcomes : [dead, ...rest],
          notes: { fields: { sqsErrors: ['dlq refused b'] }, warn: true },
        };
      },
    };
    const backoff: SqsSettlePlugin = {
      plugin: 'backoff',
      chain: chainSettleSteps,
      afterSettle: async (outcomes) => {
        seen.push(outcomes.map((o) => o.kind));
        return { outcomes, notes: { fields: { backedOff: 1, sqsErrors: ['visibility refused'] }, warn: false } };
      },
    };
    const step = chainSettleSteps([dlq, undefined, backoff]);
    const result = await step?.([failed('a'), failed('b')], context);
    expect(seen).toEqual([
      ['failed', 'failed'],
      ['dead-lettered', 'failed'],
    ]);
    expect(result?.outcomes.map((o) => o.kind)).toEqual(['dead-lettered', 'failed']);
    expect(result?.notes).toEqual({ fields: { sqsErrors: ['dlq refused b', 'visibility refused'], backedOff: 1 }, warn: true });
  });
});

describe('settlePluginRule', () => {
  it('takes only the object the factory of its own name made: not a copy, not a look-alike, not the other plug-in', () => {
    const rule = settlePluginRule('backoff');
    const step = async () => ({ outcomes: [] });
    const made = settlePlugin('backoff', step);
    expect(rule.check(made)).toBe(true);
    expect(rule.check(settlePlugin('deadLetter', step))).toBe(false);
    expect(rule.check({ ...made })).toBe(false);
    expect(rule.check({ plugin: 'backoff', afterSettle: step, chain: chainSettleSteps })).toBe(false);
    expect(rule.check(Object.create(made))).toBe(false);
    expect(rule.check({ baseSeconds: 2 })).toBe(false);
    expect(rule.check(null)).toBe(false);
    expect(Object.isFrozen(made)).toBe(true);
    expect(rule.expected).toBe('what backoff() returns (that object itself, not a copy)');
  });
});
