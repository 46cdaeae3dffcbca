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
  /** What stands in for DynamoDB Local on a loopback endpoint, which its error messages must own up to. */
  readonly standIn: StandIn;
}

/** On a loopback endpoint: whether the testing kit's keys and region are used because none were set. */
export interface StandIn {
  readonly keys: boolean;
  readonly region: boolean;
}

// What `startDynamoDBLocal()` (effectively-once/testing) gives its clients.
// DynamoDB Local keeps one set of tables per access key and region, so a
// table the CLI creates on a local endpoint is the one a test's client sees.
const LOCAL_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** An endpoint on this machine (DynamoDB Local): it needs a region and credentials, but any will do. */
export function isLoopback(endpoint: string | undefined): boolean {
  if (endpoint === undefined) return false;
  try {
    const host = new URL(endpoint).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/**
 * Builds the clients. Keys in `env` (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`) are used as they are; otherwise the SDK's default chain
 * (profile, SSO, container, instance role) finds credentials. On a loopback
 * `--endpoint` (DynamoDB Local) without a region or keys, the testing kit's
 * region and keys stand in, so `table create --endpoint http://localhost:8000`
 * works with nothing set. A loopback endpoint that is a tunnel to AWS refuses
 * those keys (they authenticate nothing, so nothing there is read or changed);
 * `standIn` lets the error say so and what to set.
 */
export function cliClients(where: ConnectionArgs, env: Readonly<Record<string, string | undefined>>): CliClients {
  const accessKeyId = env['AWS_ACCESS_KEY_ID'];
  const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
  const sessionToken = env['AWS_SESSION_TOKEN'];
  const local = isLoopback(where.endpoint);
  const region = where.region ?? (local ? LOCAL_REGION : undefined);
  const given = accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : undefined;
  const credentials = given ?? (local && env['AWS_PROFILE'] === undefined ? LOCAL_CREDENTIALS : undefined);
  const config: DynamoDBClientConfig = {
    ...(region === undefined ? {} : { region }),
    ...(where.endpoint === undefined ? {} : { endpoint: where.endpoint }),
    ...(credentials === undefined ? {} : { credentials }),
  };
  const client = new DynamoDBClient(config);
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { client, doc, standIn: { keys: credentials === LOCAL_CREDENTIALS, region: local && where.region === undefined } };
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

/**
 * The region `client` sends to: the one given, DynamoDB Local's on a loopback endpoint, else the one the SDK
 * resolves (`AWS_REGION`, the profile); `undefined` when none can be (the request that follows will say so).
 * For messages and the audit line, which must name the region actually used.
 */
export async function regionInUse(client: DynamoDBClient): Promise<string | undefined> {
  try {
    return await client.config.region();
  } catch {
    return undefined;
  }
}
