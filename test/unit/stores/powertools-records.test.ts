/**
 * `powertoolsRecords()` without a table: its options are checked when it is built (a `TypeError` naming the option),
 * the `previous` option takes only what it returns, and a Powertools item is judged as Powertools' own conditional put
 * judges it (`powertoolsFinding`). Reading the table for real: test/integration/powertools/.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { eventBridgeIdempotency, sqsIdempotency } from '../../../src/index.js';
import { powertoolsRecords } from '../../../src/powertools/index.js';
import { powertoolsFinding } from '../../../src/stores/powertools/records.js';
import { MemoryIdempotencyStore } from '../../../src/testing/index.js';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const valid = { client, tableName: 'powertools', key: (r: unknown) => r, until: new Date('2030-01-01T00:00:00Z') };

describe('powertoolsRecords options', () => {
  it('are checked when built: unknown, missing or of the wrong type is a TypeError naming the option', () => {
    expect(() => powertoolsRecords({ ...valid, eventKeyJmesPath: 'id' } as never)).toThrow(
      /powertoolsRecords: unknown option "eventKeyJmesPath"/,
    );
    expect(() => powertoolsRecords({ ...valid, until: undefined } as never)).toThrow(/option "until" is required/);
    expect(() => powertoolsRecords({ ...valid, until: new Date('not a date') })).toThrow(/option "until" must be a valid Date/);
    expect(() => powertoolsRecords({ ...valid, until: Date.now() } as never)).toThrow(/option "until" must be a valid Date/);
    expect(() => powertoolsRecords({ ...valid, hashFunction: 'md6' })).toThrow(/option "hashFunction" must be a hash function name/);
    expect(() => powertoolsRecords({ ...valid, key: 'powertools_json(body).orderNo' } as never)).toThrow(/option "key" must be a function/);
    expect(() => powertoolsRecords({ ...valid, keyPrefix: '' })).toThrow(/option "keyPrefix" must be a non-empty string/);
    expect(() => powertoolsRecords({ ...valid, client: {} as never })).toThrow(/option "client" must be a DynamoDBDocumentClient/);
  });

  it('the previous option of both middlewares takes what powertoolsRecords() returns, nothing else', () => {
    const store = new MemoryIdempotencyStore();
    const previous = powertoolsRecords(valid);
    expect(() => sqsIdempotency({ store, key: () => 'k', previous })).not.toThrow();
    expect(() => eventBridgeIdempotency({ store, key: () => 'k', previous })).not.toThrow();
    const said = /option "previous" must be what powertoolsRecords\(\) returns/;
    expect(() => sqsIdempotency({ store, key: () => 'k', previous: { tableName: 'powertools' } as never })).toThrow(said);
    expect(() => eventBridgeIdempotency({ store, key: () => 'k', previous: valid as never })).toThrow(said);
  });
});

describe('powertoolsFinding: a Powertools item at a time, as its conditional put decides', () => {
  const attrs = {
    statusAttr: 'status',
    expiryAttr: 'expiration',
    inProgressExpiryAttr: 'in_progress_expiration',
    dataAttr: 'data',
    validationKeyAttr: 'validation',
  };
  const now = Date.UTC(2026, 6, 1, 12);
  const inSeconds = (ms: number) => Math.round(ms / 1000);

  it('no item, or one past its expiration: none', () => {
    expect(powertoolsFinding(undefined, now, attrs)).toEqual({ kind: 'none' });
    expect(powertoolsFinding({ status: 'COMPLETED', expiration: inSeconds(now) - 1 }, now, attrs)).toEqual({ kind: 'none' });
  });

  it('COMPLETED before its expiration: completed, with its stored data', () => {
    const item = { status: 'COMPLETED', expiration: inSeconds(now) + 60, data: { receipt: 'r-1' } };
    expect(powertoolsFinding(item, now, attrs)).toEqual({ kind: 'completed', result: { receipt: 'r-1' } });
    expect(powertoolsFinding({ status: 'COMPLETED', expiration: inSeconds(now) }, now, attrs)).toEqual({ kind: 'completed' });
  });

  it('INPROGRESS: held until its in_progress_expiration; without one, until its expiration', () => {
    const expiration = inSeconds(now) + 3600;
    expect(powertoolsFinding({ status: 'INPROGRESS', expiration, in_progress_expiration: now + 1 }, now, attrs)).toEqual({
      kind: 'in-progress',
      untilMs: now + 1,
    });
    expect(powertoolsFinding({ status: 'INPROGRESS', expiration, in_progress_expiration: now - 1 }, now, attrs)).toEqual({ kind: 'none' });
    expect(powertoolsFinding({ status: 'INPROGRESS', expiration }, now, attrs)).toEqual({
      kind: 'in-progress',
      untilMs: expiration * 1000,
    });
  });

  it('a status Powertools never writes holds until its expiration, as Powertools refused it', () => {
    const expiration = inSeconds(now) + 60;
    expect(powertoolsFinding({ status: 'EXPIRED', expiration }, now, attrs)).toEqual({ kind: 'in-progress', untilMs: expiration * 1000 });
  });

  it('another payload hash than the one recorded: mismatch; none recorded, or none to compare: no check', () => {
    const item = { status: 'COMPLETED', expiration: inSeconds(now) + 60, validation: 'abc=' };
    expect(powertoolsFinding(item, now, attrs, 'xyz=')).toMatchObject({ kind: 'mismatch' });
    expect(powertoolsFinding(item, now, attrs, 'abc=')).toEqual({ kind: 'completed' });
    expect(powertoolsFinding(item, now, attrs)).toEqual({ kind: 'completed' });
    expect(powertoolsFinding({ status: 'COMPLETED', expiration: inSeconds(now) + 60 }, now, attrs, 'xyz=')).toEqual({ kind: 'completed' });
  });

  it('other attribute names, and numbers as a DocumentClient with wrapNumbers hands them over', () => {
    const names = { ...attrs, statusAttr: 's', expiryAttr: 'e' };
    const wrapped = Object.assign(Object.create({ toBigInt: () => 0n }) as object, { value: String(inSeconds(now) - 1) });
    expect(powertoolsFinding({ s: 'COMPLETED', e: wrapped }, now, names)).toEqual({ kind: 'none' });
    expect(powertoolsFinding({ s: 'COMPLETED', e: inSeconds(now) + 60 }, now, names)).toEqual({ kind: 'completed' });
  });
});
