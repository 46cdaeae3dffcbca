/**
 * Reading a stream's shards for the local stream poller: list the shards,
 * read up to N records of one shard after a checkpoint, as Lambda records.
 * One reader per service. The SDK commands are imported when a reader is
 * first used, so the simulators load without the Kinesis or DynamoDB
 * Streams client installed.
 */
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { fromDynamoDBStreamsRecord, fromKinesisRecord } from './stream-records.js';

/** One shard as the poller needs it. */
export interface ShardInfo {
  readonly shardId: string;
  /** Its parent's id: the parent's records come first. */
  readonly parentShardId: string | undefined;
}

/** What one `GetRecords` gave. */
export interface ShardRead<TRecord> {
  readonly records: readonly TRecord[];
  /** Where to read on; `undefined`: the shard is closed and was read to its end. */
  readonly next: string | undefined;
}

/** Where a shard iterator starts: after a sequence number, at the shard's start or at its tip. */
export type ShardPosition = { readonly after: string } | 'TRIM_HORIZON' | 'LATEST';

/** Where the poller reads records from: one stream. */
export interface ShardReader<TRecord> {
  /** The stream's ARN (the records' `eventSourceARN`). */
  arn(): Promise<string>;
  shards(): Promise<readonly ShardInfo[]>;
  /** A shard iterator at `position` (`undefined`: the shard is closed and nothing is left). */
  iterator(shardId: string, position: ShardPosition): Promise<string | undefined>;
  /** Up to `limit` records from `iterator`. */
  read(shardId: string, iterator: string, limit: number): Promise<ShardRead<TRecord>>;
  /** A record's sequence number. */
  sequenceOf(record: TRecord): string;
  /** When a record reached the stream (epoch ms). */
  arrivedAt(record: TRecord): number;
}

type Position =
  | { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER'; StartingSequenceNumber: string }
  | { ShardIteratorType: 'TRIM_HORIZON' | 'LATEST' };

function iteratorType(p: ShardPosition): Position {
  return typeof p === 'string' ? { ShardIteratorType: p } : { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: p.after };
}

/** A Kinesis stream, by name, through the caller's client. */
export function kinesisShardReader(client: KinesisClient, streamName: string): ShardReader<KinesisStreamRecord> {
  // Imported on first use, not when the reader is built: a missing client then fails the poll that needs it.
  let loaded: Promise<typeof import('@aws-sdk/client-kinesis')> | undefined;
  const sdk = () => (loaded ??= import('@aws-sdk/client-kinesis'));
  let arn: Promise<string> | undefined;
  const streamArn = (): Promise<string> => {
    arn ??= sdk().then(async ({ DescribeStreamSummaryCommand }) => {
      const out = await client.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
      return out.StreamDescriptionSummary?.StreamARN ?? streamName;
    });
    return arn;
  };
  return {
    arn: streamArn,
    async shards() {
      const { ListShardsCommand } = await sdk();
      const out = await client.send(new ListShardsCommand({ StreamName: streamName }));
      return (out.Shards ?? []).map((s) => ({ shardId: s.ShardId ?? '', parentShardId: s.ParentShardId }));
    },
    async iterator(shardId, at) {
      const { GetShardIteratorCommand } = await sdk();
      const { StartingSequenceNumber, ShardIteratorType } = { StartingSequenceNumber: undefined, ...iteratorType(at) };
      const it = await client.send(
        new GetShardIteratorCommand({ StreamName: streamName, ShardId: shardId, ShardIteratorType, StartingSequenceNumber }),
      );
      return it.ShardIterator;
    },
    async read(shardId, iterator, limit) {
      const { GetRecordsCommand } = await sdk();
      const out = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
      const source = await streamArn();
      return { records: (out.Records ?? []).map((r) => fromKinesisRecord(r, shardId, source)), next: out.NextShardIterator };
    },
    sequenceOf: (record) => record.kinesis.sequenceNumber,
    arrivedAt: (record) => record.kinesis.approximateArrivalTimestamp * 1000,
  };
}

/** A DynamoDB stream, by ARN (`LatestStreamArn` of the table), through the caller's client. */
export function dynamoDBStreamsShardReader(client: DynamoDBStreamsClient, streamArn: string): ShardReader<DynamoDBRecord> {
  let loaded: Promise<typeof import('@aws-sdk/client-dynamodb-streams')> | undefined;
  const sdk = () => (loaded ??= import('@aws-sdk/client-dynamodb-streams'));
  return {
    arn: () => Promise.resolve(streamArn),
    async shards() {
      const { DescribeStreamCommand } = await sdk();
      const shards: ShardInfo[] = [];
      let start: string | undefined;
      do {
        const out = await client.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
        for (const s of out.StreamDescription?.Shards ?? []) shards.push({ shardId: s.ShardId ?? '', parentShardId: s.ParentShardId });
        start = out.StreamDescription?.LastEvaluatedShardId;
      } while (start !== undefined);
      return shards;
    },
    async iterator(shardId, at) {
      const { GetShardIteratorCommand } = await sdk();
      const { SequenceNumber, ShardIteratorType } = { SequenceNumber: undefined, ...rename(iteratorType(at)) };
      const it = await client.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType, SequenceNumber }),
      );
      return it.ShardIterator;
    },
    async read(_shardId, iterator, limit) {
      const { GetRecordsCommand } = await sdk();
      const out = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
      return { records: (out.Records ?? []).map((r) => fromDynamoDBStreamsRecord(r, streamArn)), next: out.NextShardIterator };
    },
    sequenceOf: (record) => record.dynamodb?.SequenceNumber ?? '',
    arrivedAt: (record) => (record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000,
  };
}

/** DynamoDB Streams names the starting sequence number `SequenceNumber`. */
function rename(p: Position): { ShardIteratorType: Position['ShardIteratorType']; SequenceNumber?: string } {
  return 'StartingSequenceNumber' in p ? { ShardIteratorType: p.ShardIteratorType, SequenceNumber: p.StartingSequenceNumber } : p;
}
