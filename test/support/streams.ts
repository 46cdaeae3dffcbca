/**
 * Test helpers for stream sources: a table with a stream on the test DynamoDB
 * Local and a client for its Streams API; kinesalite streams with records put
 * on a chosen shard.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { PutRecordCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { inject } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';

/** A client for the Streams API of the test DynamoDB Local. */
export function testStreamsClient(): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({ endpoint: inject('dynamodbEndpoint'), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

/** A fresh table keyed by `pk` with a NEW_AND_OLD_IMAGES stream; its name and stream ARN. */
export async function streamTable(client: DynamoDBClient, prefix = 'stream'): Promise<{ tableName: string; streamArn: string }> {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  const out = await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  const streamArn = out.TableDescription?.LatestStreamArn;
  if (streamArn === undefined) throw new Error(`table ${tableName} has no stream`);
  return { tableName, streamArn };
}

/** Hash keys that land on shard 0 and shard 1 of a two-shard stream. */
export const SHARD_HASH = ['0', '170141183460469231731687303715884105728'] as const;

/** Puts `data` (JSON, or raw bytes) on shard `shard` (0 or 1) of a two-shard stream; its sequence number. */
export async function putOnShard(
  client: KinesisClient,
  streamName: string,
  shard: 0 | 1,
  data: unknown,
  partitionKey = 'pk',
): Promise<string> {
  const bytes = data instanceof Uint8Array ? data : new TextEncoder().encode(JSON.stringify(data));
  const out = await client.send(
    new PutRecordCommand({ StreamName: streamName, PartitionKey: partitionKey, ExplicitHashKey: SHARD_HASH[shard], Data: bytes }),
  );
  return out.SequenceNumber ?? '';
}
