import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/engine/clock.js';
import { defaults, resolveStoreOptions } from '../../../src/stores/dynamodb/options.js';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

describe('resolveStoreOptions', () => {
  it('applies the defaults', () => {
    expect(resolveStoreOptions({ client, tableName: 't' }, 'DynamoDBIdempotencyStore')).toEqual({ client, tableName: 't', ...defaults });
    expect(defaults).toMatchObject({ retentionMs: 86_400_000, hashKeys: false, release: 'delete', cache: false, clock: systemClock });
  });

  it('keeps given values and ignores explicit undefined', () => {
    const clock = { now: () => 1 };
    const resolved = resolveStoreOptions(
      { client, tableName: 't', retentionMs: 5, cache: { maxEntries: 3 }, clock, hashKeys: undefined },
      'DynamoDBIdempotencyStore',
    );
    expect(resolved).toMatchObject({ retentionMs: 5, cache: { maxEntries: 3 }, clock, hashKeys: false });
  });

  it('defaults cannot be changed at run time', () => {
    expect(Object.isFrozen(defaults)).toBe(true);
  });

  it.each([
    [{ tableNam: 't' }, /unknown option "tableNam"/],
    [{ retentionMs: 0 }, /"retentionMs"/],
    [{ retentionMs: Number.POSITIVE_INFINITY }, /"retentionMs"/],
    [{ hashKeys: 'yes' }, /"hashKeys"/],
    [{ release: 'keep' }, /"release"/],
    [{ cache: true }, /"cache"/],
    [{ cache: { maxEntries: 2, ttl: 5 } }, /"cache"/],
    [{ cache: { maxEntries: 1.5 } }, /"cache"/],
    [{ clock: { now: 5 } }, /"clock"/],
    [{ client: {} }, /"client"/],
    [{ tableName: 5 }, /"tableName"/],
  ])('%o is a TypeError naming the option', (bad, message) => {
    expect(() => resolveStoreOptions({ client, tableName: 't', ...bad }, 'DynamoDBIdempotencyStore')).toThrow(TypeError);
    expect(() => resolveStoreOptions({ client, tableName: 't', ...bad }, 'DynamoDBIdempotencyStore')).toThrow(message);
  });

  it('rejects non-object options', () => {
    expect(() => resolveStoreOptions(undefined, 'DynamoDBClaimStore')).toThrow(TypeError);
  });
});
