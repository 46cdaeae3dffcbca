/**
 * Option names are checked as own properties: prototype members are not
 * options. The flat options that moved into `claim()` / `transaction()` are
 * named, with where they went, by every middleware.
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

describe('options that moved into claim() and transaction() are named with where they went', () => {
  const middlewares = {
    sqsIdempotency: (o: object) => sqsIdempotency({ store, key: () => 'k', ...o } as never),
    eventBridgeIdempotency: (o: object) => eventBridgeIdempotency({ store, key: () => 'k', ...o } as never),
    kinesisIdempotency: (o: object) => kinesisIdempotency({ store, ...o } as never),
    dynamoDBStreamsIdempotency: (o: object) => dynamoDBStreamsIdempotency({ store, ...o } as never),
  };
  const moved: ReadonlyArray<readonly [string, object, string]> = [
    ['commit', { commit: 'record' }, 'strategy: transaction({ commit })'],
    ['probeDuplicates', { probeDuplicates: 'never' }, 'strategy: transaction({ probeDuplicates })'],
    ['onConflict', { onConflict: 'acknowledge' }, 'strategy: transaction({ onConflict })'],
    ['claims', { claims: 'pipelined' }, 'strategy: claim({ pipelined })'],
    ['lease.heartbeat', { lease: { heartbeat: true } }, 'strategy: claim({ heartbeat })'],
  ];
  for (const [owner, build] of Object.entries(middlewares)) {
    it.each(moved)(`${owner}: option "%s" is a TypeError saying where it went`, (name, option, instead) => {
      expect(() => build(option)).toThrow(TypeError);
      expect(() => build(option)).toThrow(`${owner}: option "${name}" moved: use ${instead}.`);
      // Given as undefined (a JavaScript caller's spread), it counts as not given, as any option does.
      expect(() => build(name === 'lease.heartbeat' ? { lease: { heartbeat: undefined } } : { [name]: undefined })).not.toThrow();
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
    it.each(['claim', 'transaction'])(`${owner}: the name "%s" is a TypeError saying which object to write`, (name) => {
      expect(() => build({ strategy: name })).toThrow(TypeError);
      expect(() => build({ strategy: name })).toThrow(
        `${owner}: option "strategy" no longer takes the name "${name}": write strategy: ${name}(), imported from 'effectively-once'`,
      );
    });
  }
});
