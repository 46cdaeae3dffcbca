/**
 * Type tests of the strategy objects: options that cannot combine do not
 * compile. `claim()` carries what only a claim has (pipelined claims, a
 * heartbeat), `transaction()` what only a transaction has (commit,
 * probeDuplicates, onConflict), and each middleware takes only the settings
 * its source can use. Each `@ts-expect-error` proves a refusal (if the
 * library accepted the line, the directive itself would be an error); each
 * case also runs, and asserts the run-time answer a JavaScript caller gets.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  backoff,
  claim,
  deadLetter,
  dynamoDBStreamsIdempotency,
  eventBridgeIdempotency,
  kafkaIdempotency,
  kinesisIdempotency,
  sqsIdempotency,
  transaction,
} from '../../src/index.js';
import type { ClaimStrategy, PipelinedClaimStrategy } from '../../src/strategies/claim/claim.js';
import type { SqsTransactionStrategy, TransactionStrategy } from '../../src/strategies/transaction/transaction.js';
import { MemoryIdempotencyStore } from '../../src/testing/index.js';

// Built, never run: a store with commit is all the transaction strategy's option check asks for.
const store = Object.assign(new MemoryIdempotencyStore(), {
  commit: async () => {
    throw new Error('unused');
  },
});
const key = (r: SQSRecord) => r.messageId;

describe('claim()', () => {
  it('returns a frozen claim strategy with its settings resolved', () => {
    const plain = claim();
    expectTypeOf(plain).toEqualTypeOf<ClaimStrategy>();
    expect(plain).toEqual({ kind: 'claim', pipelined: false, heartbeat: false });
    expect(Object.isFrozen(plain)).toBe(true);
    expectTypeOf(claim({ heartbeat: { everyMs: 500 } })).toEqualTypeOf<ClaimStrategy>();
    expect(claim({ heartbeat: { everyMs: 500 } })).toEqual({ kind: 'claim', pipelined: false, heartbeat: { everyMs: 500 } });
    expect(claim({ pipelined: true })).toEqual({ kind: 'claim', pipelined: true, heartbeat: false });
  });

  it('refuses pipelined claims with a heartbeat, and any transaction setting', () => {
    // @ts-expect-error pipelined claims take no heartbeat.
    expect(() => claim({ pipelined: true, heartbeat: true })).toThrow('claim(): option "pipelined" may be true only without a heartbeat');
    // @ts-expect-error commit is a transaction's setting.
    expect(() => claim({ commit: 'record' })).toThrow('claim(): unknown option "commit"');
    // @ts-expect-error onConflict is a transaction's setting.
    expect(() => claim({ onConflict: 'acknowledge' })).toThrow('claim(): unknown option "onConflict"');
    // A period the type takes but a timer cannot: the run-time check names it.
    expect(() => claim({ heartbeat: { everyMs: 0 } })).toThrow('claim(): option "heartbeat" must be');
  });
});

describe('transaction()', () => {
  it('returns the strategy every source takes, or with commit settings the one only SQS takes', () => {
    expectTypeOf(transaction()).toEqualTypeOf<TransactionStrategy>();
    expect(transaction()).toEqual({ kind: 'transaction', onConflict: 'fail' });
    expectTypeOf(transaction({ onConflict: 'acknowledge' })).toEqualTypeOf<TransactionStrategy>();
    expectTypeOf(transaction({ commit: 'record' })).toEqualTypeOf<TransactionStrategy | SqsTransactionStrategy>();
    expect(transaction({ commit: 'record' })).toEqual({
      kind: 'transaction',
      onConflict: 'fail',
      commit: 'record',
      probeDuplicates: 'auto',
    });
    expect(Object.isFrozen(transaction({ probeDuplicates: 'never' }))).toBe(true);
  });

  it('refuses claim settings', () => {
    // @ts-expect-error a transaction holds no claim to renew.
    expect(() => transaction({ heartbeat: true })).toThrow('transaction(): unknown option "heartbeat"');
    // @ts-expect-error a transaction claims nothing, pipelined or not.
    expect(() => transaction({ pipelined: true })).toThrow('transaction(): unknown option "pipelined"');
    // @ts-expect-error commit is 'group' or 'record'.
    expect(() => transaction({ commit: 'batch' })).toThrow('transaction(): option "commit" must be one of "group", "record"');
  });
});

describe('sqsIdempotency takes every strategy setting', () => {
  it('takes claim() with pipelined or a heartbeat, transaction() with commit settings', () => {
    for (const strategy of [
      claim(),
      transaction(),
      claim({ pipelined: true }),
      claim({ heartbeat: true }),
      transaction({ commit: 'record' }),
    ] as const) {
      expect(() => sqsIdempotency({ store, key, strategy })).not.toThrow();
    }
    const pipelined: PipelinedClaimStrategy = claim({ pipelined: true }) as PipelinedClaimStrategy;
    expect(() => sqsIdempotency({ store, key, strategy: pipelined })).not.toThrow();
  });

  it('refuses a strategy setting given as a middleware option, at compile time and at run time', () => {
    // @ts-expect-error a transaction's setting: strategy: transaction({ commit }).
    expect(() => sqsIdempotency({ store, key, strategy: transaction(), commit: 'record' })).toThrow(
      'sqsIdempotency: unknown option "commit"',
    );
    // @ts-expect-error a transaction's setting: strategy: transaction({ probeDuplicates }).
    expect(() => sqsIdempotency({ store, key, probeDuplicates: 'never' })).toThrow('sqsIdempotency: unknown option "probeDuplicates"');
    // @ts-expect-error a transaction's setting: strategy: transaction({ onConflict }).
    expect(() => sqsIdempotency({ store, key, onConflict: 'acknowledge' })).toThrow('sqsIdempotency: unknown option "onConflict"');
    // @ts-expect-error a claim's setting: strategy: claim({ pipelined }).
    expect(() => sqsIdempotency({ store, key, claims: 'pipelined' })).toThrow('sqsIdempotency: unknown option "claims"');
    // @ts-expect-error a claim's setting: strategy: claim({ heartbeat }); the lease is its bounds only.
    expect(() => sqsIdempotency({ store, key, lease: { heartbeat: true } })).toThrow('sqsIdempotency: option "lease" must be');
  });

  it('takes the SQS extras as plug-ins: the old option objects are refused, naming the option', () => {
    const sqs = { send: async () => ({}) } as never;
    expect(() => sqsIdempotency({ store, key, deadLetter: deadLetter({ sqs }), backoff: backoff({ sqs, maxSeconds: 60 }) })).not.toThrow();
    // @ts-expect-error write deadLetter: deadLetter({ sqs, dlqUrl, isPermanent }).
    expect(() => sqsIdempotency({ store, key, permanentFailures: {} })).toThrow('sqsIdempotency: unknown option "permanentFailures"');
    // @ts-expect-error the client goes to the plug-in's factory.
    expect(() => sqsIdempotency({ store, key, sqs })).toThrow('sqsIdempotency: unknown option "sqs"');
    // @ts-expect-error write backoff: backoff({ sqs, maxSeconds }).
    expect(() => sqsIdempotency({ store, key, backoff: { maxSeconds: 60 } })).toThrow(
      'sqsIdempotency: option "backoff" must be what backoff() returns',
    );
    // @ts-expect-error one plug-in is not the other.
    expect(() => sqsIdempotency({ store, key, deadLetter: backoff({ sqs }) })).toThrow(
      'option "deadLetter" must be what deadLetter() returns',
    );
    // @ts-expect-error write nothing: no plug-in, no metrics.
    expect(() => sqsIdempotency({ store, key, metrics: false })).toThrow(
      'option "metrics" must be what emfMetrics() or powertoolsMetrics() returns',
    );
    // The factories check their own options once.
    // @ts-expect-error the client is required.
    expect(() => deadLetter({})).toThrow('deadLetter: option "sqs" is required');
    expect(() => backoff({ sqs, baseSeconds: 10, maxSeconds: 5 })).toThrow(
      'backoff: option "baseSeconds" (10) must be at most "maxSeconds" (5)',
    );
    // @ts-expect-error queueUrl is a function.
    expect(() => backoff({ sqs, queueUrl: 'u' })).toThrow('backoff: option "queueUrl" must be a function');
  });
});

describe('the other sources refuse the settings only SQS can use', () => {
  const kinesis = { store, consumer: 'clicks' };
  it('EventBridge, Kinesis and DynamoDB Streams take claim({ heartbeat }) and transaction({ onConflict })', () => {
    for (const strategy of [claim({ heartbeat: true }), transaction({ onConflict: 'acknowledge' }), transaction()] as const) {
      expect(() => eventBridgeIdempotency({ store, consumer: 'mailer', key: (e) => e.id, strategy })).not.toThrow();
      expect(() => kinesisIdempotency({ ...kinesis, strategy })).not.toThrow();
      expect(() => dynamoDBStreamsIdempotency({ ...kinesis, strategy })).not.toThrow();
    }
  });

  it('refuses transaction({ commit | probeDuplicates }) and claim({ pipelined: true })', () => {
    const eb = { store, consumer: 'mailer', key: (e: { id: string }) => e.id };
    // @ts-expect-error a single event has no batch to commit together.
    expect(() => eventBridgeIdempotency({ ...eb, strategy: transaction({ commit: 'record' }) })).toThrow(/"strategy".*only sqsIdempotency/);
    // @ts-expect-error nor batch records to probe.
    expect(() => eventBridgeIdempotency({ ...eb, strategy: transaction({ probeDuplicates: 'always' }) })).toThrow(/"strategy"/);
    // @ts-expect-error a single event has no claims to pipeline.
    expect(() => eventBridgeIdempotency({ ...eb, strategy: claim({ pipelined: true }) })).toThrow(/"strategy".*only sqsIdempotency/);
    // @ts-expect-error a stream's transactions are committed its own way.
    expect(() => kinesisIdempotency({ ...kinesis, strategy: transaction({ commit: 'group' }) })).toThrow(/"strategy"/);
    // @ts-expect-error a stream's records run in shard order: pipelining has nothing to start early.
    expect(() => dynamoDBStreamsIdempotency({ ...kinesis, strategy: claim({ pipelined: true }) })).toThrow(/"strategy"/);
    // @ts-expect-error a transaction's setting: strategy: transaction({ onConflict }).
    expect(() => eventBridgeIdempotency({ ...eb, onConflict: 'acknowledge' })).toThrow(
      'eventBridgeIdempotency: unknown option "onConflict"',
    );
    // @ts-expect-error a transaction's setting: strategy: transaction({ onConflict }).
    expect(() => kinesisIdempotency({ ...kinesis, onConflict: 'acknowledge' })).toThrow('kinesisIdempotency: unknown option "onConflict"');
  });
});

describe('no middleware takes a strategy by name any more', () => {
  // A name is no strategy object: a TypeError saying which objects the option takes.
  const said = {
    claim: `option "strategy" must be what claim() or transaction() returns, got "claim"`,
    transaction: `option "strategy" must be what claim() or transaction() returns, got "transaction"`,
  };
  const eb = { store, consumer: 'mailer', key: (e: { id: string }) => e.id };
  const stream = { store, consumer: 'clicks' };

  it('"claim" is refused at compile time and at run time by every middleware', () => {
    // @ts-expect-error a name: write claim().
    expect(() => sqsIdempotency({ store, key, strategy: 'claim' })).toThrow(`sqsIdempotency: ${said.claim}`);
    // @ts-expect-error a name: write claim().
    expect(() => kinesisIdempotency({ ...stream, strategy: 'claim' })).toThrow(`kinesisIdempotency: ${said.claim}`);
    // @ts-expect-error a name: write claim().
    expect(() => dynamoDBStreamsIdempotency({ ...stream, strategy: 'claim' })).toThrow(`dynamoDBStreamsIdempotency: ${said.claim}`);
    // @ts-expect-error a name: write claim().
    expect(() => kafkaIdempotency({ ...stream, key: () => 'k', strategy: 'claim' })).toThrow(`kafkaIdempotency: ${said.claim}`);
    // @ts-expect-error a name: write claim().
    expect(() => eventBridgeIdempotency({ ...eb, strategy: 'claim' })).toThrow(`eventBridgeIdempotency: ${said.claim}`);
  });

  it('"transaction" is refused at compile time and at run time by every middleware, each a TypeError', () => {
    // @ts-expect-error a name: write transaction().
    expect(() => sqsIdempotency({ store, key, strategy: 'transaction' })).toThrow(`sqsIdempotency: ${said.transaction}`);
    // @ts-expect-error a name: write transaction().
    expect(() => kinesisIdempotency({ ...stream, strategy: 'transaction' })).toThrow(`kinesisIdempotency: ${said.transaction}`);
    // @ts-expect-error a name: write transaction().
    expect(() => dynamoDBStreamsIdempotency({ ...stream, strategy: 'transaction' })).toThrow(TypeError);
    // @ts-expect-error a name: write transaction().
    expect(() => kafkaIdempotency({ ...stream, key: () => 'k', strategy: 'transaction' })).toThrow(TypeError);
    // @ts-expect-error a name: write transaction().
    expect(() => eventBridgeIdempotency({ ...eb, strategy: 'transaction' })).toThrow(`eventBridgeIdempotency: ${said.transaction}`);
  });

  it('a strategy object written by hand carries no steps: a TypeError saying which objects the option takes', () => {
    const said = 'sqsIdempotency: option "strategy" must be what claim() or transaction() returns';
    const handMade = { kind: 'transaction', onConflict: 'fail' } as never;
    expect(() => sqsIdempotency({ store, key, strategy: handMade })).toThrow(said);
    const pipelined = { kind: 'claim', pipelined: true, heartbeat: false } as never;
    expect(() => sqsIdempotency({ store, key, strategy: pipelined })).toThrow(said);
    // A plain claim too (no strategy at all is claim()).
    expect(() => sqsIdempotency({ store, key, strategy: { kind: 'claim', pipelined: false, heartbeat: false } as never })).toThrow(said);
    expect(() => sqsIdempotency({ store, key, strategy: claim() })).not.toThrow();
  });
});
