/**
 * The consumer name is the EMF `Consumer` dimension: a name CloudWatch would
 * drop the whole document for (not printable ASCII, over 1024 characters)
 * is refused when the middleware is built with `emfMetrics()`; with no
 * metrics plug-in (or `powertoolsMetrics`) any consumer name goes.
 */
import { describe, expect, it } from 'vitest';
import {
  dynamoDBStreamsIdempotency,
  emfMetrics,
  eventBridgeIdempotency,
  kinesisIdempotency,
  powertoolsMetrics,
  sqsIdempotency,
} from '../../../src/index.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const store = new MemoryIdempotencyStore();
const key = () => 'k';
const powertools = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
const builders = {
  sqsIdempotency: (o: object) => sqsIdempotency({ store, key, ...o }),
  eventBridgeIdempotency: (o: object) => eventBridgeIdempotency({ store, key, ...o }),
  kinesisIdempotency: (o: object) => kinesisIdempotency({ store, ...o }),
  dynamoDBStreamsIdempotency: (o: object) => dynamoDBStreamsIdempotency({ store, ...o }),
};

describe('consumer name as the EMF Consumer dimension', () => {
  for (const [name, build] of Object.entries(builders)) {
    it(`${name}: a consumer CloudWatch cannot take as a dimension value is a TypeError naming "consumer" under emfMetrics()`, () => {
      for (const consumer of ['zahlungen-prüfung', 'tab\there', 'x'.repeat(1025)]) {
        expect(() => build({ consumer, metrics: emfMetrics() }), consumer).toThrow(TypeError);
        expect(() => build({ consumer, metrics: emfMetrics() }), consumer).toThrow(/"consumer".*metrics/);
        expect(() => build({ consumer })).not.toThrow();
        expect(() => build({ consumer, metrics: powertoolsMetrics(powertools) })).not.toThrow();
      }
      expect(() => build({ consumer: 'payments-v2 eu', metrics: emfMetrics() })).not.toThrow();
    });
  }
});
