import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../../src/index.js';
import { BodyParseError, MissingKeyError } from '../../../src/engine/errors.js';
import { payloadHash, sha256 } from '../../../src/engine/hashing.js';
import { payloadMismatch, prepare } from '../../../src/engine/prepare.js';
import { sqsRecord } from '../../../src/testing/index.js';

const byOrderNo = {
  key: (r: SQSRecord) => jsonBody<{ orderNo?: unknown }>(r).orderNo as string | undefined,
  payload: (r: SQSRecord) => r.body,
};

describe('prepare', () => {
  it('extracts the key and a payload hash that ignores key order', () => {
    const a = prepare(sqsRecord({ body: '{"orderNo":"o1","amount":1}' }), { ...byOrderNo, payload: (r) => JSON.parse(r.body) as unknown });
    const b = prepare(sqsRecord({ body: '{"amount":1,"orderNo":"o1"}' }), { ...byOrderNo, payload: (r) => JSON.parse(r.body) as unknown });
    expect(a).toMatchObject({ key: 'o1' });
    expect(a).toEqual(b);
  });
  it('turns a body that does not parse into a BodyParseError, without throwing', () => {
    expect(prepare(sqsRecord({ body: '{nope' }), byOrderNo)).toBeInstanceOf(BodyParseError);
  });
  it('turns a missing, empty or non-string key into a MissingKeyError', () => {
    for (const body of ['{}', '{"orderNo":""}', '{"orderNo":{"a":1}}', '{"orderNo":null}']) {
      expect(prepare(sqsRecord({ body }), byOrderNo), body).toBeInstanceOf(MissingKeyError);
    }
  });
  it('accepts numeric keys and skips the hash when payload checking is off', () => {
    expect(prepare(sqsRecord({ body: '{"orderNo":42}' }), { key: () => 42, payload: false })).toEqual({ key: '42' });
  });
  it('wraps an error thrown by the key function', () => {
    const result = prepare(sqsRecord({ body: '{}' }), {
      key: () => {
        throw new Error('boom');
      },
      payload: false,
    });
    expect(result).toBeInstanceOf(BodyParseError);
    expect((result as Error).message).toMatch(/boom/);
  });
  it('payloadMismatch flags a changed payload, never one recorded by 0.1.0 (another hash form)', () => {
    const context = { key: 'k' };
    expect(payloadMismatch(payloadHash({ a: 1 }), payloadHash({ a: 2 }), 'changed', context)?.name).toBe('PayloadMismatchError');
    expect(payloadMismatch(payloadHash({ a: 1 }), payloadHash({ a: 1 }), 'same', context)).toBeUndefined();
    expect(payloadMismatch(payloadHash({ a: 1 }), sha256('{"a":2}'), 'legacy', context)).toBeUndefined();
  });
});
