/**
 * AWS clients, created once per Lambda container and reused by every
 * invocation (their connection pools and credentials stay warm).
 *
 * `DYNAMODB_ENDPOINT` points the DynamoDB client at DynamoDB Local, for
 * `serverless invoke local`; in Lambda it is unset.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Env } from './env.js';

let documentClient: DynamoDBDocumentClient | undefined;
let eventBridgeClient: EventBridgeClient | undefined;
let sqsClient: SQSClient | undefined;

/** Local endpoints accept any credentials, but the SDK insists on having some. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * The container's DynamoDB DocumentClient.
 *
 * @example
 * ```ts
 * import { sharedDocumentClient } from './aws.js';
 * const client = sharedDocumentClient();
 * ```
 */
export function sharedDocumentClient(env: Env = process.env): DynamoDBDocumentClient {
  if (documentClient === undefined) {
    const endpoint = env['DYNAMODB_ENDPOINT'];
    const base = new DynamoDBClient(
      endpoint === undefined || endpoint === ''
        ? {}
        : { endpoint, region: env['AWS_REGION'] ?? 'us-east-1', credentials: LOCAL_CREDENTIALS },
    );
    // Optional attributes are left out of items rather than rejected.
    documentClient = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  }
  return documentClient;
}

/** The container's EventBridge client. */
export function sharedEventBridgeClient(): EventBridgeClient {
  eventBridgeClient ??= new EventBridgeClient({});
  return eventBridgeClient;
}

/** The container's SQS client (notifications: permanent failures to the DLQ, backoff). */
export function sharedSqsClient(): SQSClient {
  sqsClient ??= new SQSClient({});
  return sqsClient;
}
