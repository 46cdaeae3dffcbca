/**
 * The consumer name is the EMF `Consumer` dimension: a name CloudWatch would
 * drop the whole document for (not printable ASCII, over 1024 characters)
 * is refused when the middleware is built, while metrics are on; with
 * `metrics: false` (or a Powertools instance) any consumer name goes.
 */
import { describe, expect, it } from 'vitest';
import { dynamoDBStreamsIdempotency, eventBridgeIdempotency, kinesisIdempotency, sqsIdempotency } from '../../../src/index.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const store = new MemoryIdempotencyStore();
const key = () => 'k';
const builders = {
  sqsIdempotency: (o: object) => sqsIdempotency({ store, key, ...o }),
  eventBridgeIdempotency: (o: object) => eventBridgeIdempotency({ store, key, ...o }),
  kinesisIdempotency: (o: object) => kinesisIdempotency({ store, ...o }),
  dynamoDBStreamsIdempotency: (o: object) => dynamoDBStreamsIdempotency({ store, ...o }),
};

describe('consumer name as the EMF Consumer dimension', () => {
  for (const [name, build] of Object.entries(builders)) {
    it(`${name}: a consumer CloudWatch cannot take as a dimension value is a TypeError naming "consumer" while EMF is on`, () => {
      for (const consumer of ['zahlungen-prüfung', 'tab\there', 'x'.repeat(1025)]) {
        expect(() => build({ consumer }), consumer).toThrow(TypeError);
        expect(() => build({ consumer }), consumer).toThrow(/"consumer".*metrics/);
        expect(() => build({ consumer, metrics: false })).not.toThrow();
      }
      expect(() => build({ consumer: 'payments-v2 eu' })).not.toThrow();
    });
  }
});
