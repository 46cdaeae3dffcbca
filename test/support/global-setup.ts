/**
 * Vitest global setup: one DynamoDB Local and one redis-server for the whole
 * run (or the ones named by DYNAMODB_ENDPOINT and REDIS_URL), handed to the
 * tests through `inject('dynamodbEndpoint')` and `inject('redisUrl')`.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDBLocal, type DynamoDBLocalHandle } from '../../infra/dynamodb-local.js';
import { startRedisLocal, type RedisLocalHandle } from '../../infra/redis-local.js';

let handle: DynamoDBLocalHandle | undefined;
let redis: RedisLocalHandle | undefined;

export async function setup(project: TestProject): Promise<void> {
  const [dynamo, server] = await Promise.allSettled([startDynamoDBLocal(), startRedisLocal()]);
  handle = dynamo.status === 'fulfilled' ? dynamo.value : undefined;
  redis = server.status === 'fulfilled' ? server.value : undefined;
  if (handle === undefined || redis === undefined) {
    await teardown(); // stop the one that did start, so no process is left behind
    throw [dynamo, server].flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))[0];
  }
  project.provide('dynamodbEndpoint', handle.endpoint);
  project.provide('redisUrl', redis.url);
}

export async function teardown(): Promise<void> {
  await Promise.all([handle?.stop(), redis?.stop()]);
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    redisUrl: string;
  }
}
