/**
 * Reading a table's stream on DynamoDB Local, as Lambda's DynamoDB Streams
 * mapping would hand it to a function: DescribeStream, GetShardIterator,
 * GetRecords, each record turned into the Lambda event shape. Tests of the
 * outbox relay use it to read the real stream of a real transaction.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';

/** A streams client on the same DynamoDB Local endpoint as `client`. */
export async function streamsClientFor(client: DynamoDBClient): Promise<DynamoDBStreamsClient> {
  const at = await client.config.endpoint?.();
  if (at === undefined) throw new Error('The DynamoDB client has no endpoint (DynamoDB Local expected).');
  const endpoint = `${at.protocol}//${at.hostname}${at.port === undefined ? '' : `:${at.port}`}${at.path}`;
  return new DynamoDBStreamsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

/** The table's latest stream ARN; throws when the table has no stream. */
export async function streamArnOf(client: DynamoDBClient, table: string): Promise<string> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const arn = Table?.LatestStreamArn;
  if (arn === undefined) throw new Error(`Table ${table} has no stream (StreamSpecification).`);
  return arn;
}

/** An SDK stream record in the shape Lambda hands to a function. */
export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const { dynamodb } = record;
  const at = dynamodb?.ApproximateCreationDateTime;
  return {
    eventID: record.eventID ?? '',
    eventName: record.eventName ?? 'INSERT',
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(at === undefined ? {} : { ApproximateCreationDateTime: Math.floor(at.getTime() / 1000) }),
      // The SDK's and aws-lambda's AttributeValue types differ only in optionality.
      ...(dynamodb?.Keys === undefined ? {} : { Keys: dynamodb.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'] }),
      ...(dynamodb?.NewImage === undefined ? {} : { NewImage: dynamodb.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] }),
      ...(dynamodb?.OldImage === undefined ? {} : { OldImage: dynamodb.OldImage as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'] }),
      ...(dynamodb?.SequenceNumber === undefined ? {} : { SequenceNumber: dynamodb.SequenceNumber }),
      ...(dynamodb?.SizeBytes === undefined ? {} : { SizeBytes: dynamodb.SizeBytes }),
      ...(dynamodb?.StreamViewType === undefined ? {} : { StreamViewType: dynamodb.StreamViewType }),
    },
  };
}

/**
 * Every record in the table's stream so far, from the start of each shard,
 * as one Lambda event (shard after shard, each in sequence order).
 */
export async function readStream(client: DynamoDBClient, table: string): Promise<DynamoDBStreamEvent> {
  const streams = await streamsClientFor(client);
  try {
    const arn = await streamArnOf(client, table);
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    const records: DynamoDBRecord[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      const start = await streams.send(
        new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      let iterator = start.ShardIterator;
      while (iterator !== undefined) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        const got = page.Records ?? [];
        records.push(...got.map((r) => toLambdaRecord(r, arn)));
        // An open shard always returns a next iterator: stop at the first empty page.
        iterator = got.length === 0 ? undefined : page.NextShardIterator;
      }
    }
    return { Records: records };
  } finally {
    streams.destroy();
  }
}
