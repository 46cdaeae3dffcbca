/**
 * `forget`: deletes one record so the next delivery of its key runs the
 * handler again. It shows the record, asks (or takes `--yes`), deletes only
 * if the record is still what was shown, and prints one JSON audit line.
 * With a Redis URL it removes a Redis filter's marker of the record too,
 * which would otherwise go on answering the key; without one it warns,
 * unless `--no-redis` says no filter is in front of the table.
 */
import { userInfo } from 'node:os';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DeleteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord, IdempotencyStatus } from '../src/engine/record.js';
import { isAwsError } from '../src/stores/dynamodb/refusals.js';
import { ATTR } from '../src/stores/dynamodb/layout.js';
import { recordFromWire } from '../src/stores/dynamodb/records.js';
import { markerKey } from '../src/stores/redis/fields.js';
import { accessKeyId } from './client.js';
import { EXIT, type Command, type CommandContext } from './command.js';
import { readLine } from './io.js';
import { candidates, TARGET_OPTIONS, type Candidate } from './lookup.js';
import { showRecord } from './inspect.js';
import { markerWarning, openMarkerRedis, REDIS_OPTIONS, redisArgs, RedisUnavailableError, shellQuoted, type MarkerRedis } from './redis.js';

/**
 * The conditional delete: status, attempt count and owner token must be the
 * ones shown, so a claim taken or completed meanwhile is not deleted unseen.
 */
export function forgetRequest(tableName: string, record: IdempotencyRecord): DeleteCommandInput {
  const owner = record.owner === undefined ? 'attribute_not_exists(#owner)' : '#owner = :owner';
  return {
    TableName: tableName,
    Key: { [ATTR.id]: record.id },
    ConditionExpression: `#status = :status AND #attempts = :attempts AND ${owner}`,
    ExpressionAttributeNames: { '#status': ATTR.status, '#attempts': ATTR.attempts, '#owner': ATTR.owner },
    ExpressionAttributeValues: {
      ':status': record.status,
      ':attempts': record.attempts,
      ...(record.owner === undefined ? {} : { ':owner': record.owner }),
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

function osUser(env: Readonly<Record<string, string | undefined>>): string {
  try {
    return userInfo().username;
  } catch {
    // Some containers run as a uid with no passwd entry.
    return env['USER'] ?? env['USERNAME'] ?? 'unknown';
  }
}

// Interactive yes/no; without a terminal only --yes may delete.
async function confirmed(ctx: CommandContext, question: string): Promise<boolean> {
  const { io, flags } = ctx;
  if (flags['yes'] === true) return true;
  if (!io.stdinIsTTY) {
    io.stderr('refusing to delete: stdin is not a terminal, so nobody can confirm. Pass --yes to delete from a script.\n');
    return false;
  }
  io.stderr(`${question} The next delivery of this key will run the handler again. [y/N] `);
  const answer = (await readLine(io.stdin))?.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  io.stderr('not deleted.\n');
  return false;
}

function warnIfLive(ctx: CommandContext, record: IdempotencyRecord): void {
  if (record.status !== 'IN_PROGRESS' || record.leaseUntil === undefined || record.leaseUntil <= ctx.io.now()) return;
  const until = new Date(record.leaseUntil).toISOString();
  ctx.io.stderr(`warning: this claim's lease runs until ${until}: an invocation may be working on it right now.\n`);
}

async function deleteShown(ctx: CommandContext, record: IdempotencyRecord): Promise<boolean> {
  try {
    await ctx.clients.doc.send(new DeleteCommand(forgetRequest(ctx.where.table, record)));
    return true;
  } catch (err) {
    if (!isAwsError(err, 'ConditionalCheckFailedException')) throw err;
    const now = recordFromWire(err['Item'] as Record<string, AttributeValue> | undefined);
    const what = now === undefined ? 'it is gone' : `it is now ${now.status}, attempt ${now.attempts}`;
    ctx.io.stderr(`not deleted: the record changed since it was shown (${what}). Run forget again to see it.\n`);
    return false;
  }
}

/** What became of the filter's marker, for the audit line. */
interface MarkerOutcome {
  readonly url: string;
  readonly key: string;
  readonly removed: boolean;
  readonly statusBefore: IdempotencyStatus | null;
  readonly error?: string;
}

// After the DynamoDB delete, never before: a delivery that read the record meanwhile could write the marker back.
async function removeMarker(ctx: CommandContext, redis: MarkerRedis, id: string): Promise<MarkerOutcome> {
  const key = markerKey(redis.keyPrefix, id);
  try {
    const found = await redis.remove(id);
    ctx.io.stderr(
      found === undefined
        ? `no filter marker at ${key} in Redis at ${redis.url}.\n`
        : `removed the filter's marker ${key} (${found.record.status}) from Redis at ${redis.url}.\n`,
    );
    return { url: redis.url, key, removed: found !== undefined, statusBefore: found?.record.status ?? null };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    ctx.io.stderr(
      `effectively-once forget: removing the filter's marker ${key} from Redis at ${redis.url} failed (${error}); ` +
        `it may still answer this key. Remove it with: redis-cli -u URL DEL ${shellQuoted(key)}\n`,
    );
    return { url: redis.url, key, removed: false, statusBefore: null, error };
  }
}

async function printAudit(ctx: CommandContext, id: string, before: IdempotencyRecord | undefined, marker: MarkerOutcome | undefined) {
  const audit = {
    audit: 'effectively-once forget',
    at: new Date(ctx.io.now()).toISOString(),
    who: { accessKeyId: (await accessKeyId(ctx.clients.client)) ?? null, osUser: osUser(ctx.io.env) },
    table: ctx.where.table,
    region: ctx.where.region ?? null,
    id,
    statusBefore: before?.status ?? null,
    attemptsBefore: before?.attempts ?? null,
    redisMarker: marker ?? null,
  };
  ctx.io.stdout(`${JSON.stringify(audit)}\n`);
}

// No record in DynamoDB (forgotten earlier without a Redis URL, or never stored there), but the filter may still answer.
async function forgetMarkerOnly(ctx: CommandContext, redis: MarkerRedis, tried: readonly Candidate[]): Promise<number> {
  const markers = (await Promise.all(tried.map((c) => redis.find(c.id)))).flatMap((m) => (m === undefined ? [] : [m]));
  const [marker] = markers;
  if (marker === undefined) {
    ctx.io.stderr(
      `no filter marker either: tried ${tried.map((c) => markerKey(redis.keyPrefix, c.id)).join(', ')} in Redis at ${redis.url}.\n`,
    );
    return EXIT.failed;
  }
  if (markers.length > 1) {
    ctx.io.stderr(`both key forms have a filter marker: ${markers.map((m) => m.key).join(' and ')}. Pass --plain-keys or --hash-keys.\n`);
    return EXIT.failed;
  }
  ctx.io.stderr(
    `but the filter's marker ${marker.key} in Redis at ${redis.url} holds it as ${marker.record.status}, and answers this key.\n`,
  );
  if (!(await confirmed(ctx, `Delete the filter marker ${marker.key} (${marker.record.status})?`))) return EXIT.failed;
  const outcome = await removeMarker(ctx, redis, marker.record.id);
  await printAudit(ctx, marker.record.id, undefined, outcome);
  return outcome.error === undefined ? EXIT.ok : EXIT.failed;
}

/** Where a filter's markers are: a Redis to remove them from, none (`--no-redis`), or unknown (warn). */
type Markers =
  | { readonly kind: 'redis'; readonly redis: MarkerRedis }
  | { readonly kind: 'none' }
  | { readonly kind: 'unknown'; readonly keyPrefix: string };

async function forgetRecord(ctx: CommandContext, markers: Markers): Promise<number> {
  const redis = markers.kind === 'redis' ? markers.redis : undefined;
  const found = await showRecord(ctx);
  if (found.kind === 'not-found' && redis !== undefined) return forgetMarkerOnly(ctx, redis, found.tried);
  if (found.kind === 'not-found' && markers.kind === 'unknown') ctx.io.stderr(NO_RECORD_HINT);
  if (found.kind !== 'found') return EXIT.failed;
  const { record } = found;
  warnIfLive(ctx, record);
  const alsoMarker = redis === undefined ? '' : ` and its filter marker in Redis`;
  if (!(await confirmed(ctx, `Delete ${record.id} (${record.status})${alsoMarker}?`))) return EXIT.failed;
  if (!(await deleteShown(ctx, record))) return EXIT.failed;
  const marker = redis === undefined ? undefined : await removeMarker(ctx, redis, record.id);
  const warning = markers.kind === 'unknown' ? markerWarning(record, markers.keyPrefix, ctx.io.now()) : undefined;
  if (warning !== undefined) ctx.io.stderr(warning);
  await printAudit(ctx, record.id, record, marker);
  return marker?.error === undefined ? EXIT.ok : EXIT.failed;
}

const NO_RECORD_HINT =
  "hint: if this table's consumers use withRedisFilter, its marker may still answer the key: pass --redis-url (or set REDIS_URL) to look for it and remove it (--no-redis: there is no filter).\n";

async function forget(ctx: CommandContext): Promise<number> {
  const { keyPrefix, target, none } = redisArgs(ctx.flags, ctx.io.env);
  let redis: MarkerRedis | undefined;
  try {
    redis = target === undefined ? undefined : await openMarkerRedis(target);
    const markers: Markers = redis !== undefined ? { kind: 'redis', redis } : none ? { kind: 'none' } : { kind: 'unknown', keyPrefix };
    return await forgetRecord(ctx, markers);
  } catch (err) {
    // Only opening Redis or a lookup fails this way: a failed removal is reported where it happens, after the record was deleted.
    if (!(err instanceof RedisUnavailableError)) throw err;
    ctx.io.stderr(`effectively-once forget: ${err.message}. Nothing was deleted.\n`);
    return EXIT.failed;
  } finally {
    await redis?.close();
  }
}

export const forgetCommand: Command = {
  name: 'forget',
  summary: 'delete one record (and its Redis filter marker) so its key is processed again',
  options: { ...TARGET_OPTIONS, ...REDIS_OPTIONS, yes: { type: 'boolean', short: 'y' } },
  usage: `effectively-once forget --table T (--consumer C --key K | --id ID) [--hash-keys | --plain-keys]
                        [--redis-url URL [--redis-key-prefix P] | --no-redis] [--yes] [--json]
  Shows the record, asks for confirmation (--yes skips it; required without a terminal), deletes it only if it is
  still what was shown, and prints one JSON audit line.
  --redis-url URL (or REDIS_URL): the Redis of a withRedisFilter in front of this table; its marker of the record is
  removed too (--redis-key-prefix P: the filter's keyPrefix, default eo:m:). Without one, forget warns that such a
  marker may still answer the key, and prints the redis-cli command that removes it.
  --no-redis: no withRedisFilter is in front of this table; forget says nothing of markers.`,
  check: (flags) => {
    candidates(flags);
    redisArgs(flags, {});
  },
  run: forget,
};
