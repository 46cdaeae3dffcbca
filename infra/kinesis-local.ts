/**
 * A local Kinesis (kinesalite, in memory, in this process) for tests and
 * local runs, and a client for it. The SDK's default HTTP/2 handler does not
 * talk to kinesalite: the client uses the HTTP/1.1 `NodeHttpHandler`.
 */
import type { AddressInfo } from 'node:net';
import { CreateStreamCommand, DescribeStreamSummaryCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import kinesalite from 'kinesalite';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './dynamodb-local.js';

/** A running kinesalite. */
export interface KinesisLocalHandle {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** A client for it. */
  readonly client: KinesisClient;
  stop(): Promise<void>;
}

/** Starts kinesalite on a free port; streams become ACTIVE at once. */
export async function startKinesisLocal(): Promise<KinesisLocalHandle> {
  const server = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new KinesisClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    requestHandler: new NodeHttpHandler(),
  });
  return {
    endpoint,
    client,
    stop: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Creates a stream of `shardCount` shards and waits until it is ACTIVE. */
export async function createKinesisStream(client: KinesisClient, streamName: string, shardCount: number): Promise<string> {
  await client.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: shardCount }));
  for (;;) {
    const out = await client.send(new DescribeStreamSummaryCommand({ StreamName: streamName }));
    const summary = out.StreamDescriptionSummary;
    if (summary?.StreamStatus === 'ACTIVE') return summary.StreamARN ?? streamName;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
