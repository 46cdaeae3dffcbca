/**
 * The CLI's own DynamoDB client: unlike the library, which is handed a
 * client, a command-line tool has to build one from flags and environment.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ConnectionArgs } from './args.js';

/** A low-level client (for its resolved config) and the DocumentClient the store uses. */
export interface CliClients {
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
}

/**
 * Builds the clients. Keys in `env` (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`) are used as they are; otherwise the SDK's default chain
 * (profile, SSO, container, instance role) finds credentials.
 */
export function cliClients(where: ConnectionArgs, env: Readonly<Record<string, string | undefined>>): CliClients {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  const sessionToken = env['AWS_SESSION_TOKEN'];
  const config: DynamoDBClientConfig = {
    ...(where.region === undefined ? {} : { region: where.region }),
    ...(where.endpoint === undefined ? {} : { endpoint: where.endpoint }),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } } : {}),
  };
  const client = new DynamoDBClient(config);
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc };
}

/**
 * The access key id of the credentials in use, for the audit line; `undefined`
 * when they cannot be resolved (the request that follows will say why).
 */
export async function accessKeyId(client: DynamoDBClient): Promise<string | undefined> {
  try {
    const credentials = await client.config.credentials();
    return credentials.accessKeyId;
  } catch {
    return undefined;
  }
}
