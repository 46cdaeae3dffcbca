/**
 * Vitest global setup: one DynamoDB Local for the whole run (or the one named
 * by DYNAMODB_ENDPOINT), handed to the tests through `inject('dynamodbEndpoint')`.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDBLocal, type DynamoDBLocalHandle } from '../../infra/dynamodb-local.js';

let handle: DynamoDBLocalHandle | undefined;

export async function setup(project: TestProject): Promise<void> {
  handle = await startDynamoDBLocal();
  project.provide('dynamodbEndpoint', handle.endpoint);
}

export async function teardown(): Promise<void> {
  await handle?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}
