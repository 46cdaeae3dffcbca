/**
 * Type tests of the one stream middleware factory: a source's options
 * interface may not declare an option the factory has no rule for (it would
 * otherwise be refused as unknown only when the middleware is built).
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { KinesisIdempotencyOptions } from '../../src/index.js';
import { kinesisSource } from '../../src/sources/streams/adapter.js';
import { kinesisDefaults } from '../../src/sources/streams/kinesis.js';
import { streamIdempotency, type StreamOptions } from '../../src/sources/streams/middleware.js';
import { MemoryIdempotencyStore } from '../../src/testing/index.js';

describe('streamIdempotency', () => {
  it('takes a source’s options interface, and refuses one with an option it has no rule for', () => {
    const store = new MemoryIdempotencyStore();
    const options: KinesisIdempotencyOptions = { store, consumer: 'clicks' };
    expect(typeof streamIdempotency('kinesisIdempotency', kinesisSource, options, kinesisDefaults).before).toBe('function');
    const wider: StreamOptions<KinesisStreamRecord> & { readonly batchSize?: number } = { store, consumer: 'clicks' };
    // @ts-expect-error batchSize is no stream option: it has no rule.
    expect(() => streamIdempotency('kinesisIdempotency', kinesisSource, wider, kinesisDefaults)).not.toThrow();
  });
});
