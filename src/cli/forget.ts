/**
 * `forget`: deletes one record so the next delivery of its key runs the
 * handler again. It shows the record, asks (or takes `--yes`), deletes only
 * if the record is still what was shown, and prints one JSON audit line.
 */
import { userInfo } from 'node:os';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DeleteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../core/record.js';
import { isAwsError } from '../store/cancellation.js';
import { ATTR } from '../store/layout.js';
import { recordFromWire } from '../store/records.js';
import { accessKeyId } from './client.js';
import { EXIT, type Command, type CommandContext } from './command.js';
import { readLine } from './io.js';
import { candidates, TARGET_OPTIONS } from './lookup.js';
import { showRecord } from './inspect.js';

/**
 * The conditional delete: status, attempt count and owner token must be the
 * ones shown, so a claim taken or completed meanwhile is not deleted unseen.
 *
 * @example
 * ```ts
 * import { forgetRequest } from './forget.js';
 * const request = forgetRequest('idempotency', { id: 'payments#42', status: 'COMPLETED', expiresAt: 1_900_000_000, attempts: 1 });
 * ```
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
async function confirmed(ctx: CommandContext, record: IdempotencyRecord): Promise<boolean> {
  const { io, flags } = ctx;
  if (flags['yes'] === true) return true;
  if (!io.stdinIsTTY) {
    io.stderr('refusing to delete: stdin is not a terminal, so nobody can confirm. Pass --yes to delete from a script.\n');
    return false;
  }
  io.stderr(`Delete ${record.id} (${record.status})? The next delivery of this key will run the handler again. [y/N] `);
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

async function forget(ctx: CommandContext): Promise<number> {
  const found = await showRecord(ctx);
  if (found.kind !== 'found') return EXIT.failed;
  const { record } = found;
  warnIfLive(ctx, record);
  if (!(await confirmed(ctx, record))) return EXIT.failed;
  if (!(await deleteShown(ctx, record))) return EXIT.failed;
  const audit = {
    audit: 'effectively-once forget',
    at: new Date(ctx.io.now()).toISOString(),
    who: { accessKeyId: (await accessKeyId(ctx.clients.client)) ?? null, osUser: osUser(ctx.io.env) },
    table: ctx.where.table,
    region: ctx.where.region ?? null,
    id: record.id,
    statusBefore: record.status,
    attemptsBefore: record.attempts,
  };
  ctx.io.stdout(`${JSON.stringify(audit)}\n`);
  return EXIT.ok;
}

/**
 * The `forget` command.
 *
 * @example
 * ```ts
 * import { forgetCommand } from './forget.js';
 * console.log(forgetCommand.usage);
 * ```
 */
export const forgetCommand: Command = {
  name: 'forget',
  summary: 'delete one record so its key is processed again',
  options: { ...TARGET_OPTIONS, yes: { type: 'boolean', short: 'y' } },
  usage: `effectively-once forget --table T (--consumer C --key K | --id ID) [--hash-keys | --plain-keys] [--yes] [--json]
  Shows the record, asks for confirmation (--yes skips it; required without a terminal), deletes it only if it is
  still what was shown, and prints one JSON audit line.`,
  check: (flags) => void candidates(flags),
  run: forget,
};
