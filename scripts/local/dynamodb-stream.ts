/**
 * Reading a table's stream on DynamoDB Local, as Lambda's DynamoDB Streams
 * mapping would hand it to a function (the stream poller's shard reader:
 * DescribeStream, GetShardIterator, GetRecords, records in the Lambda shape). Tests of the
 * outbox relay use it to read the real stream of a real transaction.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { dynamoDBStreamsShardReader } from '../sim/stream-shards.js';

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

/**
 * Every record in the table's stream so far, from the start of each shard,
 * as one Lambda event (shard after shard, each in sequence order), read with
 * the stream poller's own shard reader.
 */
export async function readStream(client: DynamoDBClient, table: string): Promise<DynamoDBStreamEvent> {
  const streams = await streamsClientFor(client);
  try {
    const reader = dynamoDBStreamsShardReader(streams, await streamArnOf(client, table));
    const records: DynamoDBRecord[] = [];
    for (const { shardId } of await reader.shards()) {
      let iterator = await reader.iterator(shardId, 'TRIM_HORIZON');
      while (iterator !== undefined) {
        const page = await reader.read(shardId, iterator, 1000);
        records.push(...page.records);
        // An open shard always returns a next iterator: stop at the first empty page.
        iterator = page.records.length === 0 ? undefined : page.next;
      }
    }
    return { Records: records };
  } finally {
    streams.destroy();
  }
}
