/**
 * Millisecond options must be numbers the code can use: a delay fed to a
 * timer is at most 2^31 - 1 ms (a longer one fires after 1 ms), and a
 * retention must keep `now + retentionMs` a date a record can carry (1e300
 * was accepted and then failed every record). Each is a `TypeError` naming
 * the option when the thing is built.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBIdempotencyStore, eventBridgeIdempotency, RedisIdempotencyStore, sqsIdempotency } from '../../src/index.js';
import { MemoryIdempotencyStore } from '../../src/testing/index.js';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const store = new MemoryIdempotencyStore();
const TOO_LONG = 2 ** 31;
const redis = { sendCommand: async () => null };

const middlewares = {
  sqsIdempotency: (o: object) => sqsIdempotency({ store, key: () => 'k', ...o }),
  eventBridgeIdempotency: (o: object) => eventBridgeIdempotency({ store, key: () => 'k', ...o }),
};

describe('timer-bound ms options', () => {
  describe.each(Object.entries(middlewares))('%s', (_, build) => {
    it.each([{ marginMs: TOO_LONG }, { floorMs: TOO_LONG, capMs: TOO_LONG }, { capMs: TOO_LONG }])('lease %o is refused', (lease) => {
      expect(() => build({ lease })).toThrow(TypeError);
      expect(() => build({ lease })).toThrow(/"lease"/);
    });
    it.each([TOO_LONG, 1e300, Number.POSITIVE_INFINITY])('safetyMarginMs %d is refused', (safetyMarginMs) => {
      expect(() => build({ safetyMarginMs })).toThrow(/"safetyMarginMs"/);
    });
    it('the longest timer delay is accepted', () => {
      expect(() => build({ safetyMarginMs: TOO_LONG - 1, lease: { capMs: TOO_LONG - 1 } })).not.toThrow();
    });
  });

  const stores = {
    DynamoDBIdempotencyStore: (retentionMs: number) => new DynamoDBIdempotencyStore({ client, tableName: 't', retentionMs }),
    MemoryIdempotencyStore: (retentionMs: number) => new MemoryIdempotencyStore({ retentionMs }),
    RedisIdempotencyStore: (retentionMs: number) => new RedisIdempotencyStore({ redis, retentionMs }),
  };
  describe.each(Object.entries(stores))('%s', (_, build) => {
    it.each([1e300, Number.MAX_SAFE_INTEGER])('retentionMs %d is refused', (retentionMs) => {
      expect(() => build(retentionMs)).toThrow(TypeError);
      expect(() => build(retentionMs)).toThrow(/"retentionMs"/);
    });
    it('a retention of ten years is accepted', () => {
      expect(() => build(10 * 365 * 86_400_000)).not.toThrow();
    });
  });
});
