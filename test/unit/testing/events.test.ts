import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock, eventBridgeEvent, lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { md5OfMessageAttributes } from '../../../src/testing/events.js';

const fifoArn = 'arn:aws:sqs:us-east-2:111122223333:payments.fifo';

describe('sqsRecord', () => {
  it('builds a standard record with the fields Lambda sets and a real md5 of the body', () => {
    const record = sqsRecord({ body: 'hello', sentAt: 1_700_000_000_000 });
    expect(record.md5OfBody).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(record.eventSource).toBe('aws:sqs');
    expect(record.eventSourceARN).toBe('arn:aws:sqs:eu-west-1:123456789012:test-queue');
    expect(record.awsRegion).toBe('eu-west-1');
    expect(record.attributes).toEqual({
      ApproximateReceiveCount: '1',
      SentTimestamp: '1700000000000',
      SenderId: expect.any(String),
      ApproximateFirstReceiveTimestamp: '1700000000000',
    });
    expect(record.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(record.receiptHandle.length).toBeGreaterThan(40);
    expect('md5OfMessageAttributes' in record).toBe(false);
  });

  it('JSON-encodes a non-string body', () => {
    expect(sqsRecord({ body: { orderNo: 'o-1' } }).body).toBe('{"orderNo":"o-1"}');
  });

  it('adds FIFO attributes when the ARN ends in .fifo, with increasing sequence numbers', () => {
    const a = sqsRecord({ body: 'x', queueArn: fifoArn, groupId: 'o-1' });
    const b = sqsRecord({ body: 'x', queueArn: fifoArn, groupId: 'o-1', deduplicationId: 'd-2', receiveCount: 3 });
    expect(a.awsRegion).toBe('us-east-2');
    expect(a.attributes.MessageGroupId).toBe('o-1');
    expect(a.attributes.MessageDeduplicationId).toBe(createHash('sha256').update('x').digest('hex'));
    expect(b.attributes.MessageDeduplicationId).toBe('d-2');
    expect(b.attributes.ApproximateReceiveCount).toBe('3');
    expect(a.attributes.SequenceNumber).toMatch(/^\d{20}$/);
    expect(BigInt(b.attributes.SequenceNumber ?? '0')).toBeGreaterThan(BigInt(a.attributes.SequenceNumber ?? '0'));
  });

  it('rejects a deduplication id on a standard queue and a bad receive count', () => {
    expect(() => sqsRecord({ body: 'x', deduplicationId: 'd' })).toThrow(/deduplicationId/);
    expect(() => sqsRecord({ body: 'x', receiveCount: 0 })).toThrow(TypeError);
  });

  it('computes md5OfMessageAttributes from the attributes, independent of their order', () => {
    const one = { b: { dataType: 'String', stringValue: '2' }, a: { dataType: 'Number', stringValue: '1' } };
    const two = { a: { dataType: 'Number', stringValue: '1' }, b: { dataType: 'String', stringValue: '2' } };
    const changed = { a: { dataType: 'Number', stringValue: '1' }, b: { dataType: 'String', stringValue: '3' } };
    const record = sqsRecord({ body: 'x', messageAttributes: one });
    expect(record.md5OfMessageAttributes).toMatch(/^[0-9a-f]{32}$/);
    expect(md5OfMessageAttributes(two)).toBe(record.md5OfMessageAttributes);
    expect(md5OfMessageAttributes(changed)).not.toBe(record.md5OfMessageAttributes);
    expect(md5OfMessageAttributes({})).toBeUndefined();
  });

  it('sqsEvent copies the records', () => {
    const records = [sqsRecord({ body: 'a' })];
    const event = sqsEvent(records);
    records.push(sqsRecord({ body: 'b' }));
    expect(event.Records).toHaveLength(1);
  });
});

describe('eventBridgeEvent', () => {
  it('has the envelope EventBridge sends, time with second precision', () => {
    const event = eventBridgeEvent({
      detailType: 'OrderPaid',
      source: 'shop.payments',
      detail: { orderNo: 'o-1' },
      time: Date.UTC(2025, 0, 2, 3, 4, 5, 678),
    });
    expect(event).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'detail-type': 'OrderPaid',
      source: 'shop.payments',
      account: '123456789012',
      time: '2025-01-02T03:04:05Z',
      region: 'eu-west-1',
      resources: [],
      detail: { orderNo: 'o-1' },
    });
    expect(eventBridgeEvent({ detailType: 'X', source: 's', detail: null, id: 'fixed' }).id).toBe('fixed');
  });
});

describe('lambdaContext', () => {
  it('counts the remaining time down with the injected clock and never below zero', () => {
    const clock = new ManualClock();
    const context = lambdaContext({ functionName: 'payments', timeoutMs: 10_000, clock });
    expect(context.getRemainingTimeInMillis()).toBe(10_000);
    clock.advance(4_000);
    expect(context.getRemainingTimeInMillis()).toBe(6_000);
    clock.advance(7_000);
    expect(context.getRemainingTimeInMillis()).toBe(0);
  });

  it('is shaped like the real context and has a random request id', () => {
    const a = lambdaContext({ functionName: 'payments' });
    const b = lambdaContext({ functionName: 'payments' });
    expect(a.awsRequestId).not.toBe(b.awsRequestId);
    expect(a.invokedFunctionArn).toBe('arn:aws:lambda:eu-west-1:123456789012:function:payments');
    expect(a.logGroupName).toBe('/aws/lambda/payments');
    expect(a.functionVersion).toBe('$LATEST');
    expect(a.getRemainingTimeInMillis()).toBeLessThanOrEqual(3_000);
    expect(() => a.succeed('x')).toThrow(/callback API/);
  });

  it('rejects a non-positive timeout, naming the option', () => {
    expect(() => lambdaContext({ timeoutMs: 0 })).toThrow(/"timeoutMs"/);
  });
});
