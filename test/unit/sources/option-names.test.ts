/**
 * Option names are checked as own properties: prototype members are not
 * options. A strategy's settings are its factory's (`claim()`, `transaction()`):
 * given to a middleware, each is an unknown option, named.
 */
import { describe, expect, it } from 'vitest';
import {
  claim,
  dynamoDBStreamsIdempotency,
  eachRecord,
  eventBridgeIdempotency,
  kinesisIdempotency,
  sqsIdempotency,
  transaction,
  type IdempotencyStore,
} from '../../../src/index.js';

const store = {
  recordId: () => 'x',
  claim: async () => {
    throw new Error('unused');
  },
  complete: async () => {
    throw new Error('unused');
  },
  release: async () => {
    throw new Error('unused');
  },
  commit: async () => {
    throw new Error('unused');
  },
  get: async () => undefined,
  staleClaims: async () => [],
} as unknown as IdempotencyStore;

describe('unknown options named like Object.prototype members', () => {
  it('sqsIdempotency rejects an unknown option called "constructor" / "toString" (names are own properties of the rules, not the prototype’s)', () => {
    expect(() => sqsIdempotency({ store, key: () => 'k', toString: 'oops' } as never)).toThrow(/unknown option "toString"/);
    expect(() => eachRecord(() => undefined, { constructor: 3 } as never)).toThrow(/unknown option "constructor"/);
  });
});

describe('a strategy setting given to a middleware is an unknown option there', () => {
  const middlewares = {
    sqsIdempotency: (o: object) => sqsIdempotency({ store, key: () => 'k', ...o } as never),
    eventBridgeIdempotency: (o: object) => eventBridgeIdempotency({ store, key: () => 'k', ...o } as never),
    kinesisIdempotency: (o: object) => kinesisIdempotency({ store, ...o } as never),
    dynamoDBStreamsIdempotency: (o: object) => dynamoDBStreamsIdempotency({ store, ...o } as never),
  };
  const settings: ReadonlyArray<readonly [string, object, string]> = [
    ['commit', { commit: 'record' }, 'unknown option "commit"'],
    ['probeDuplicates', { probeDuplicates: 'never' }, 'unknown option "probeDuplicates"'],
    ['onConflict', { onConflict: 'acknowledge' }, 'unknown option "onConflict"'],
    ['claims', { claims: 'pipelined' }, 'unknown option "claims"'],
    ['lease.heartbeat', { lease: { heartbeat: true } }, 'option "lease" must be'],
  ];
  for (const [owner, build] of Object.entries(middlewares)) {
    it.each(settings)(`${owner}: option "%s" is a TypeError naming it`, (_name, option, said) => {
      expect(() => build(option)).toThrow(TypeError);
      expect(() => build(option)).toThrow(`${owner}: ${said}`);
    });
  }

  it('a strategy setting the source cannot use names the strategy option (JavaScript callers; the types refuse it)', () => {
    expect(() => middlewares.kinesisIdempotency({ strategy: transaction({ commit: 'record' }) })).toThrow(
      'kinesisIdempotency: option "strategy" is transaction({ commit, probeDuplicates }), which only sqsIdempotency takes',
    );
    expect(() => middlewares.eventBridgeIdempotency({ strategy: claim({ pipelined: true }) })).toThrow(
      'eventBridgeIdempotency: option "strategy" is claim({ pipelined: true }), which only sqsIdempotency takes',
    );
    expect(() => middlewares.sqsIdempotency({ strategy: { kind: 'fast' } })).toThrow(
      'sqsIdempotency: option "strategy" must be what claim() or transaction() returns',
    );
  });

  for (const [owner, build] of Object.entries(middlewares)) {
    it.each(['claim', 'transaction'])(`${owner}: the name "%s" is a TypeError saying which objects the option takes`, (name) => {
      expect(() => build({ strategy: name })).toThrow(TypeError);
      expect(() => build({ strategy: name })).toThrow(
        `${owner}: option "strategy" must be what claim() or transaction() returns, got "${name}"`,
      );
    });
  }
});
