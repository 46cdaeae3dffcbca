/**
 * The local DynamoDB Streams mapping of the outbox relay: the simulators'
 * stream poller (scripts/sim/stream-poller.ts) on DynamoDB Local's stream of
 * the orders table, with the deployed mapping's numbers (infra/queues.json):
 * batch size, bisect on error, bounded retries, maximum record age, and an
 * on-failure destination (here a list the report shows).
 */
import { DynamoDBStreamsClient, ListStreamsCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { streamMappingDefinitions } from '../../infra/queues.js';
import type { OutboxRelayHandler } from '../../src/strategies/transaction/outbox/relay.js';
import { streamPoller, type StreamFailure, type StreamPollerStats } from '../sim/index.js';
import type { Resources } from './environment.js';

/** The relay's mapping while a run works. */
export interface LocalRelayMapping {
  /** Polls in the background until {@link LocalRelayMapping.settle}. */
  start(): void;
  /**
   * Stops the background polling, then reads the stream to its end again
   * and again, calling `waitIdle` (points busy with what was published)
   * after each read that invoked the relay, until a read finds nothing new.
   */
  settle(waitIdle: () => Promise<void>): Promise<void>;
  /** Records the mapping gave up on (the on-failure destination). */
  readonly failures: StreamFailure<DynamoDBRecord>[];
  stats(): StreamPollerStats;
}

const MAX_SETTLE_ROUNDS = 20;

/** The relay's mapping on the orders table's stream of DynamoDB Local. */
export async function relayMapping(
  endpoint: string,
  table: string,
  handler: OutboxRelayHandler,
  resources: Resources,
  functionTimeoutMs?: number,
): Promise<LocalRelayMapping> {
  const definition = streamMappingDefinitions.outboxRelay;
  const client = new DynamoDBStreamsClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  resources.add('DynamoDB Streams client', () => client.destroy());
  const failures: StreamFailure<DynamoDBRecord>[] = [];
  const streamArn = (await client.send(new ListStreamsCommand({ TableName: table }))).Streams?.[0]?.StreamArn;
  if (streamArn === undefined) throw new Error(`The ${table} table has no stream (StreamSpecification in infra/tables.json).`);
  const poller = streamPoller({
    source: { kind: 'dynamodb-streams', client, streamArn },
    handler: (event) => handler(event),
    functionName: 'outbox-relay',
    batchSize: definition.batchSize,
    bisectOnError: definition.bisectBatchOnFunctionError,
    maxRetries: definition.maximumRetryAttempts,
    maxRecordAgeMs: definition.maximumRecordAgeSeconds * 1000,
    timeoutMs: functionTimeoutMs ?? definition.functionTimeoutSeconds * 1000,
    onFailure: (failure) => {
      failures.push(failure);
    },
    idleMs: 250,
  });
  let started = false;
  resources.add('outbox relay mapping', async () => {
    if (started) await poller.stop();
  });
  return {
    start() {
      started = true;
      poller.start();
    },
    async settle(waitIdle) {
      started = false;
      await poller.stop();
      for (let round = 0; round < MAX_SETTLE_ROUNDS; round += 1) {
        const before = poller.stats().invocations;
        await poller.drain();
        if (poller.stats().invocations === before) return;
        await waitIdle();
      }
    },
    failures,
    stats: () => poller.stats(),
  };
}
