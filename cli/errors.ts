/**
 * AWS failures as sentences an operator can act on: which table, region and
 * endpoint were tried, and what to set.
 */
import { INFLIGHT_INDEX_NAME } from '../src/stores/dynamodb/stale.js';
import type { ConnectionArgs } from './args.js';
import type { StandIn } from './client.js';

// Node's socket error codes that mean "nothing answered there".
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH']);

function field(err: unknown, name: string): unknown {
  return typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[name] : undefined;
}

/** `err`'s socket code, looking through `cause` and AggregateError members (Node wraps failed happy-eyeballs attempts). */
function socketCode(err: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof err !== 'object' || err === null) return undefined;
  const code = field(err, 'code');
  if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
  const nested = [field(err, 'cause'), ...(Array.isArray(field(err, 'errors')) ? (field(err, 'errors') as unknown[]) : [])];
  for (const inner of nested) {
    const found = socketCode(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** "table T in region R (endpoint E)", with what is unknown said so. */
export function describeWhere(where: ConnectionArgs): string {
  const endpoint = where.endpoint ?? 'the AWS endpoint of the region';
  return `table ${where.table} in region ${where.region ?? '(none set)'} (endpoint ${endpoint})`;
}

const REJECTED = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException']);

/**
 * Credentials refused. On a loopback endpoint with the stand-in keys, the endpoint is not DynamoDB Local (which takes
 * any key) but AWS behind a tunnel: say what to set. With a stand-in region, the signature may be scoped to the wrong one.
 */
function rejected(name: string, message: string, where: ConnectionArgs, standIn: StandIn): string {
  const endpoint = where.endpoint ?? 'AWS';
  const region = where.region ?? 'us-east-1';
  if (standIn.keys) {
    return (
      `${endpoint} refused the stand-in keys the CLI uses on a loopback endpoint for DynamoDB Local (${name}: ${message}), so it is not DynamoDB Local. ` +
      `For AWS through a tunnel, set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and pass --region${standIn.region ? ` (${region} was assumed)` : ''}.`
    );
  }
  const scope = standIn.region
    ? ` On a loopback endpoint the CLI signs for ${region} unless told: pass --region with the table's region.`
    : '';
  return `the AWS credentials were rejected (${name}): ${message}${scope}`;
}

/**
 * What went wrong, in words; the SDK's own message for anything not recognised.
 */
export function explainAwsError(err: unknown, where: ConnectionArgs, standIn: StandIn = { keys: false, region: false }): string {
  const name = String(field(err, 'name') ?? '');
  const message = String(field(err, 'message') ?? err);
  const endpoint = where.endpoint ?? `dynamodb.${where.region ?? '<region>'}.amazonaws.com`;
  // The store names its own missing table (IdempotencyTableNotFoundError); the CLI says it in its own words, as for a table it reads itself.
  if (name === 'ResourceNotFoundException' || name === 'IdempotencyTableNotFoundError') {
    return `table ${where.table} not found in region ${where.region ?? '(none set)'} (endpoint ${where.endpoint ?? 'AWS'}). Check --table and --region.`;
  }
  if (name === 'CredentialsProviderError') {
    return 'no AWS credentials found. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (run `aws sso login` for SSO profiles); DynamoDB Local accepts any values.';
  }
  if (REJECTED.has(name)) return rejected(name, message, where, standIn);
  if (name === 'AccessDeniedException') return `access denied on ${describeWhere(where)}: ${message}`;
  if (/region is missing/i.test(message)) return 'no AWS region: pass --region or set AWS_REGION.';
  // Only the missing index: DynamoDB's message for a bad table name also says "index" ("Table/index names must be ...").
  if (name === 'ValidationException' && /specified index|inflight-by-lease/i.test(message)) {
    return `${describeWhere(where)} has no ${INFLIGHT_INDEX_NAME} index; create it with 'effectively-once table create' (or the definition in docs/operations.md) to list stale claims (${message}).`;
  }
  const code = socketCode(err);
  if (code !== undefined || name === 'TimeoutError') {
    return `cannot reach DynamoDB at ${endpoint} (${code ?? name}). Check --endpoint and --region, and that the endpoint is running.`;
  }
  return `${name === '' ? 'error' : name}: ${message}`;
}
