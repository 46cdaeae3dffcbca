import type { SQSMessageAttributes } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../../src/engine/hashing.js';
import { dlqEntry, queueUrlOfArn } from '../../../src/sources/sqs/dlq-message.js';
import { sqsRecord } from '../../../src/testing/index.js';

const attribute = (stringValue: string) => ({ dataType: 'String', stringValue, stringListValues: [], binaryListValues: [] });
const reason = { consumer: 'notifications', key: 'n-1', error: new TypeError('unknown template') };

describe('dlqEntry', () => {
  it('carries the body, the original attributes and ours, with the key hashed', () => {
    const binary = { dataType: 'Binary', binaryValue: Buffer.from([1, 2]).toString('base64'), stringListValues: [], binaryListValues: [] };
    const record = sqsRecord({ body: '{"a":1}', messageAttributes: { tenant: attribute('acme'), blob: binary } });
    const entry = dlqEntry('3', record, reason, false);
    expect(entry).toMatchObject({ Id: '3', MessageBody: '{"a":1}' });
    expect(entry.MessageGroupId).toBeUndefined();
    const attrs = entry.MessageAttributes;
    expect(attrs['tenant']).toEqual({ DataType: 'String', StringValue: 'acme' });
    expect([...(attrs['blob']?.BinaryValue ?? [])]).toEqual([1, 2]);
    expect(attrs['eo-reason']?.StringValue).toBe('unknown template');
    expect(attrs['eo-error-name']?.StringValue).toBe('TypeError');
    expect(attrs['eo-consumer']?.StringValue).toBe('notifications');
    expect(attrs['eo-key-hash']?.StringValue).toBe(sha256('n-1'));
    expect(attrs['eo-message-id']?.StringValue).toBe(record.messageId);
    expect(JSON.stringify(entry)).not.toContain('"n-1"');
  });

  it('packs the originals into one JSON attribute when they do not fit beside ours (SQS takes 10)', () => {
    const five: SQSMessageAttributes = Object.fromEntries([...Array(5).keys()].map((i) => [`a${i}`, attribute(String(i))]));
    expect(Object.keys(dlqEntry('0', sqsRecord({ body: 'x', messageAttributes: five }), reason, false).MessageAttributes)).toHaveLength(10);
    const many: SQSMessageAttributes = { ...five, a5: attribute('5') };
    const attrs = dlqEntry('0', sqsRecord({ body: 'x', messageAttributes: many }), reason, false).MessageAttributes;
    expect(Object.keys(attrs)).toHaveLength(6);
    expect(JSON.parse(attrs['eo-original-attributes']?.StringValue ?? '{}')).toEqual(many);
  });

  it('leaves the eo- attributes of an earlier dead-lettering out of the packed originals too', () => {
    const six: SQSMessageAttributes = Object.fromEntries([...Array(6).keys()].map((i) => [`a${i}`, attribute(String(i))]));
    const attrs = dlqEntry('0', sqsRecord({ body: 'x', messageAttributes: { ...six, 'eo-reason': attribute('old') } }), reason, false);
    expect(JSON.parse(attrs.MessageAttributes['eo-original-attributes']?.StringValue ?? '{}')).toEqual(six);
  });

  it('replaces the eo- attributes of an earlier dead-lettering with the current ones', () => {
    const record = sqsRecord({ body: 'x', messageAttributes: { 'eo-reason': attribute('old') } });
    expect(dlqEntry('0', record, reason, false).MessageAttributes['eo-reason']?.StringValue).toBe('unknown template');
  });

  it('gives a FIFO DLQ the record’s group and its message id as the deduplication id', () => {
    const record = sqsRecord({ body: 'x', queueArn: 'arn:aws:sqs:us-east-1:123456789012:q.fifo', groupId: 'g-7', messageId: 'm-7' });
    expect(dlqEntry('0', record, reason, true)).toMatchObject({ MessageGroupId: 'g-7', MessageDeduplicationId: 'm-7' });
  });
});

describe('queueUrlOfArn', () => {
  it('maps queue ARNs (China partition included) and refuses anything else', () => {
    expect(queueUrlOfArn('arn:aws:sqs:eu-west-1:123456789012:orders.fifo')).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo',
    );
    expect(queueUrlOfArn('arn:aws-cn:sqs:cn-north-1:123456789012:q')).toBe('https://sqs.cn-north-1.amazonaws.com.cn/123456789012/q');
    expect(queueUrlOfArn('arn:aws:sns:eu-west-1:123456789012:topic')).toBeUndefined();
    expect(queueUrlOfArn('orders')).toBeUndefined();
  });
});
