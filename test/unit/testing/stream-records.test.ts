import { describe, expect, it } from 'vitest';
import { kinesisData } from '../../../src/index.js';
import { dynamoDBStreamRecord, kinesisStreamRecord } from '../../../src/testing/index.js';
import { fromDynamoDBStreamsRecord, fromKinesisRecord } from '../../../scripts/sim/index.js';

const ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/t/stream/2024-01-01T00:00:00.000';

describe('stream record builders', () => {
  it('builds a Kinesis record as Lambda delivers it: base64 data, eventID shard:sequence, seconds, region from the ARN', () => {
    const record = kinesisStreamRecord({
      data: { a: 1 },
      sequenceNumber: '9',
      shardId: 'shardId-000000000002',
      streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/s',
      arrivedAt: 1_700_000_000_500,
    });
    expect(record).toMatchObject({ eventID: 'shardId-000000000002:9', eventSource: 'aws:kinesis', awsRegion: 'eu-west-1' });
    expect(record.kinesis.approximateArrivalTimestamp).toBe(1_700_000_000.5);
    expect(kinesisData(record)).toEqual({ a: 1 });
  });

  it('turns SDK GetRecords records into Lambda records (bytes to base64, dates to epoch seconds)', () => {
    const kinesis = fromKinesisRecord(
      { SequenceNumber: '5', PartitionKey: 'p', Data: Uint8Array.from([1, 2, 3]), ApproximateArrivalTimestamp: new Date(2_000) },
      'shardId-000000000001',
      'arn:aws:kinesis:us-east-1:000000000000:stream/s',
    );
    expect(kinesis.kinesis).toMatchObject({ data: 'AQID', partitionKey: 'p', sequenceNumber: '5', approximateArrivalTimestamp: 2 });
    const ddb = fromDynamoDBStreamsRecord(
      {
        eventID: 'e',
        eventName: 'MODIFY',
        awsRegion: 'eu-west-1',
        dynamodb: {
          ApproximateCreationDateTime: new Date(3_000),
          Keys: { pk: { S: 'a' } },
          NewImage: { pk: { S: 'a' }, blob: { B: Uint8Array.from([1, 2, 3]) }, list: { L: [{ BS: [Uint8Array.from([255])] }] } },
          SequenceNumber: '7',
          SizeBytes: 10,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      },
      ARN,
    );
    expect(ddb).toMatchObject({ eventID: 'e', eventName: 'MODIFY', eventSource: 'aws:dynamodb', eventSourceARN: ARN });
    expect(ddb.dynamodb).toEqual({
      ApproximateCreationDateTime: 3,
      Keys: { pk: { S: 'a' } },
      NewImage: { pk: { S: 'a' }, blob: { B: 'AQID' }, list: { L: [{ BS: ['/w=='] }] } },
      SequenceNumber: '7',
      SizeBytes: 10,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    });
  });

  it('names the change from its images when no eventName is given', () => {
    const keys = { pk: { S: 'a' } };
    expect(dynamoDBStreamRecord({ sequenceNumber: '1', keys, newImage: keys }).eventName).toBe('INSERT');
    expect(dynamoDBStreamRecord({ sequenceNumber: '1', keys, newImage: keys, oldImage: keys }).eventName).toBe('MODIFY');
    expect(dynamoDBStreamRecord({ sequenceNumber: '1', keys, oldImage: keys }).eventName).toBe('REMOVE');
  });
});
