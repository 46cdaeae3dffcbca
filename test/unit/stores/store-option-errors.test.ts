/**
 * A store's option error names the class the caller built (or the function called), not another class that shares
 * its options: `new DynamoDBClaimStore({})` must not send its reader looking for a `DynamoDBIdempotencyStore`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBClaimStore, DynamoDBIdempotencyStore, RedisIdempotencyStore, withRedisFilter } from '../../../src/index.js';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

describe('store option errors name the class used', () => {
  it.each([
    ['DynamoDBClaimStore', (o: object) => new DynamoDBClaimStore(o as never)],
    ['DynamoDBIdempotencyStore', (o: object) => new DynamoDBIdempotencyStore(o as never)],
  ])('%s: a missing, an unknown and a mistyped option', (name, build) => {
    expect(() => build({})).toThrow(new TypeError(`${name}: option "client" is required (a DynamoDBDocumentClient).`));
    expect(() => build({ client, tableName: 't', tableNam: 't' })).toThrow(new RegExp(`^${name}: unknown option "tableNam"`));
    expect(() => build({ client, tableName: 't', hashKeys: 'yes' })).toThrow(new RegExp(`^${name}: option "hashKeys" must be`));
  });

  it('RedisIdempotencyStore and withRedisFilter', () => {
    expect(() => new RedisIdempotencyStore({} as never)).toThrow(/^RedisIdempotencyStore: option "redis" is required/);
    const store = new DynamoDBClaimStore({ client, tableName: 't' });
    expect(() => withRedisFilter(store, {} as never)).toThrow(/^withRedisFilter: option "redis" is required/);
  });
});
