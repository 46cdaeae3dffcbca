import { describe, expect, it } from 'vitest';
import {
  EffectivelyOnceError,
  InvalidRecordError,
  ItemTooLargeError,
  KeyTooLongError,
  MissingKeyError,
  TransactionRetryableError,
} from '../../../src/engine/errors.js';

describe('errors', () => {
  it('set name, keep cause, key and existing record', () => {
    const cause = new Error('root');
    const existing = { id: 'c#k', status: 'COMPLETED', expiresAt: 1, attempts: 1 } as const;
    const err = new TransactionRetryableError('retry', { cause, key: 'k', existing });
    expect(err).toBeInstanceOf(EffectivelyOnceError);
    expect(err.name).toBe('TransactionRetryableError');
    expect(err.cause).toBe(cause);
    expect(err.key).toBe('k');
    expect(err.existing).toBe(existing);
    expect(err.toJSON()).toMatchObject({ name: 'TransactionRetryableError', key: 'k', cause: { message: 'root' } });
  });

  it('invalid-record errors share a parent so one record fails alone', () => {
    expect(new MissingKeyError('x')).toBeInstanceOf(InvalidRecordError);
    const tooLong = new KeyTooLongError('long', { key: 'k' });
    expect([tooLong instanceof MissingKeyError, tooLong instanceof InvalidRecordError, tooLong.name]).toEqual([
      true,
      true,
      'KeyTooLongError',
    ]);
    expect(new MissingKeyError('x').name).toBe('MissingKeyError');
    const tooLarge = new ItemTooLargeError('big', 500_000, 409_600);
    expect(tooLarge).toBeInstanceOf(InvalidRecordError);
    expect([tooLarge.name, tooLarge.size, tooLarge.limit]).toEqual(['ItemTooLargeError', 500_000, 409_600]);
  });
});
