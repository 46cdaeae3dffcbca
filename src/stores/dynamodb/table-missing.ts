/**
 * A missing idempotency table, said plainly. DynamoDB answers a request on a table that does not exist with
 * `ResourceNotFoundException` ("Requested resource not found", DynamoDB Local: "Cannot do operations on a non-existent
 * table"), which names neither the table nor the region. The store sends through {@link reportingMissingTable}, which
 * turns that answer, for its own table, into an `IdempotencyTableNotFoundError` naming the table, the region and the fix.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdempotencyTableNotFoundError, type TableLocation } from '../../engine/errors.js';
import { isPlainObject } from '../../engine/options.js';
import { ATTR } from './layout.js';
import { isAwsError } from './refusals.js';

type Send = (command: unknown) => Promise<unknown>;

/** The tables a command names (`TableName`, `RequestItems`, `TransactItems`), as far as its input shows them. */
function tablesOf(command: unknown): Set<string> {
  const tables = new Set<string>();
  const input = isPlainObject(command) ? command['input'] : undefined;
  if (!isPlainObject(input)) return tables;
  if (typeof input['TableName'] === 'string') tables.add(input['TableName']);
  if (isPlainObject(input['RequestItems'])) for (const name of Object.keys(input['RequestItems'])) tables.add(name);
  const actions = Array.isArray(input['TransactItems']) ? (input['TransactItems'] as unknown[]) : [];
  for (const action of actions.flatMap((item) => (isPlainObject(item) ? Object.values(item) : []))) {
    if (isPlainObject(action) && typeof action['TableName'] === 'string') tables.add(action['TableName']);
  }
  return tables;
}

/** A client setting that may be a value or a provider of one (the SDK resolves most to providers); never throws. */
async function setting(value: unknown): Promise<unknown> {
  try {
    return typeof value === 'function' ? await (value as () => unknown)() : value;
  } catch {
    return undefined;
  }
}

/** A custom endpoint as a URL (`http://localhost:8000`): a string, or the SDK's `{ protocol, hostname, port, path }`. */
function endpointText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof URL) return value.origin;
  if (!isPlainObject(value) || typeof value['hostname'] !== 'string') return undefined;
  const { protocol, hostname, port, path } = value;
  const scheme = typeof protocol === 'string' ? protocol.replace(/:?$/, '://') : 'https://';
  const tail = typeof path === 'string' && path !== '/' ? path : '';
  return `${scheme}${hostname}${typeof port === 'number' || typeof port === 'string' ? `:${port}` : ''}${tail}`;
}

/** Where the client looks: its region and custom endpoint, each when it has one. Never throws. */
export async function tableLocation(client: unknown, tableName: string): Promise<TableLocation> {
  const config = isPlainObject(client) && isPlainObject(client['config']) ? client['config'] : {};
  const region = await setting(config['region']);
  const endpoint = endpointText(await setting(config['endpoint']));
  return { tableName, region: typeof region === 'string' && region.length > 0 ? region : undefined, endpoint };
}

/**
 * Whether `err`, answered to `command`, says the store's table is missing: the command names only that table, or
 * (a transaction with the user's tables too, whose answer names none) a read of that table is refused the same way.
 */
async function missingTable(err: unknown, command: unknown, tableName: string, send: Send): Promise<boolean> {
  if (!isAwsError(err, 'ResourceNotFoundException')) return false;
  const tables = tablesOf(command);
  if (!tables.has(tableName)) return false;
  if (tables.size === 1) return true;
  try {
    await send(new GetCommand({ TableName: tableName, Key: { [ATTR.id]: '-' } }));
    return false;
  } catch (probe) {
    return isAwsError(probe, 'ResourceNotFoundException');
  }
}

/**
 * `client`, with its requests' `ResourceNotFoundException` about `tableName` turned into an
 * `IdempotencyTableNotFoundError` (the SDK's error its `cause`); everything else as the client answers. The client
 * itself is untouched: this is a view of it, which the store keeps.
 */
export function reportingMissingTable(client: DynamoDBDocumentClient, tableName: string): DynamoDBDocumentClient {
  const send = client.send.bind(client) as Send;
  const reporting = async (command: unknown): Promise<unknown> => {
    try {
      return await send(command);
    } catch (err) {
      if (!(await missingTable(err, command, tableName, send))) throw err;
      throw new IdempotencyTableNotFoundError(await tableLocation(client, tableName), { cause: err });
    }
  };
  // A view inheriting everything else from the client; defined, not assigned, so a frozen client works too.
  return Object.create(client, { send: { value: reporting } }) as DynamoDBDocumentClient;
}
