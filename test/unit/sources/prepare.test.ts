import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eachRecord, jsonBody, sqsIdempotency } from '../../../src/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { BodyParseError, InvalidRecordError, MissingKeyError } from '../../../src/engine/errors.js';
import { payloadHash, sha256 } from '../../../src/engine/hashing.js';
import { PAYLOAD_MISMATCH_HINT, payloadMismatch, prepare } from '../../../src/engine/prepare.js';
import { lambdaContext, MemoryIdempotencyStore, sqsEvent, sqsRecord } from '../../../src/testing/index.js';

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
  it('wraps an error thrown by the key function in a KeyFunctionError (an invalid record), the thrown error its cause', () => {
    const boom = new Error('boom');
    const result = prepare(sqsRecord({ body: '{}' }), {
      key: () => {
        throw boom;
      },
      payload: false,
    });
    expect(result).toBeInstanceOf(InvalidRecordError);
    expect(result).not.toBeInstanceOf(BodyParseError);
    expect(result).toMatchObject({ name: 'KeyFunctionError', message: 'The key function threw: boom', cause: boom });
  });
  it('wraps an error thrown by the payload function in a PayloadFunctionError, with the key and the cause', () => {
    const result = prepare(sqsRecord({ body: '{}' }), {
      key: () => 'k',
      payload: () => {
        throw 'not an Error';
      },
    });
    expect(result).toBeInstanceOf(InvalidRecordError);
    expect(result).toMatchObject({
      name: 'PayloadFunctionError',
      message: 'The payload function threw: not an Error',
      key: 'k',
      cause: 'not an Error',
    });
  });
  it('passes an InvalidRecordError the key function threw (jsonBody on a bad body) through as it is', () => {
    expect(prepare(sqsRecord({ body: '{nope' }), byOrderNo)).toMatchObject({ name: 'BodyParseError' });
  });
  it('payloadMismatch flags a changed payload, never one recorded by 0.1.0 (another hash form)', () => {
    const context = { key: 'k' };
    expect(payloadMismatch(payloadHash({ a: 1 }), payloadHash({ a: 2 }), 'changed', context)?.name).toBe('PayloadMismatchError');
    // Every mismatch, whichever source or strategy found it, says which option narrows the payload and where that is explained.
    expect(payloadMismatch(payloadHash({ a: 1 }), payloadHash({ a: 2 }), 'Changed.', context)?.message).toBe(
      `Changed. ${PAYLOAD_MISMATCH_HINT}.`,
    );
    expect(PAYLOAD_MISMATCH_HINT).toMatch(/option payload .*docs\/options\.md#the-payload-check$/);
    expect(payloadMismatch(payloadHash({ a: 1 }), payloadHash({ a: 1 }), 'same', context)).toBeUndefined();
    expect(payloadMismatch(payloadHash({ a: 1 }), sha256('{"a":2}'), 'legacy', context)).toBeUndefined();
  });
});

describe('a key function that throws, in a batch', () => {
  it('fails that record alone as invalid (KeyFunctionError in the line); the batch goes on', async () => {
    const lines: BatchLogLine[] = [];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: new MemoryIdempotencyStore(),
          key: (r) => {
            if (r.body === 'bad') throw new TypeError('boom');
            return r.body;
          },
          logger: (l) => lines.push(l),
        }),
      )
      .handler(eachRecord(() => undefined));
    const [bad, good] = [sqsRecord({ body: 'bad' }), sqsRecord({ body: 'good' })];
    expect(await handler(sqsEvent([bad, good]), lambdaContext())).toEqual({ batchItemFailures: [{ itemIdentifier: bad.messageId }] });
    expect(lines[0]?.records.map((r) => [r.outcome, r.error?.name])).toEqual([
      ['invalid', 'KeyFunctionError'],
      ['completed', undefined],
    ]);
    expect(lines[0]?.records[0]?.error?.message).toBe('The key function threw: boom');
  });
});
