/**
 * A `tx.outbox()` item that misses a key attribute of its table (a sort key
 * the item does not set, another partition key name) is refused by DynamoDB
 * with a bare `ValidationException` that names neither the table nor, always,
 * the attribute. On that refusal only, this reads the outbox table's key
 * schema and words the error as the option to set.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OUTBOX_ATTRIBUTES } from './layout.js';
import { cancellationReasons } from './cancellation.js';
import { isAwsError } from './refusals.js';
import type { TransactItem } from '../../engine/store.js';

type OutboxPut = { readonly table: string; readonly item: Readonly<Record<string, unknown>>; readonly index: number };

/** The outbox Puts among a commit's items (the idempotency Put first, then the handler's actions). */
function outboxPuts(items: readonly TransactItem[]): OutboxPut[] {
  return items.flatMap((action, index) => {
    const put = action.Put;
    if (put?.TableName === undefined || put.Item?.[OUTBOX_ATTRIBUTES.id] === undefined) return [];
    return [{ table: put.TableName, item: put.Item, index }];
  });
}

/** The Puts a refusal may be about: all of them for a bare ValidationException, the ones a cancellation names as invalid. */
function suspects(err: unknown, puts: readonly OutboxPut[]): OutboxPut[] {
  if (isAwsError(err, 'ValidationException')) return [...puts];
  const reasons = cancellationReasons(err);
  return reasons === undefined ? [] : puts.filter((p) => reasons[p.index]?.Code === 'ValidationError');
}

async function keyAttributes(client: DynamoDBDocumentClient, table: string): Promise<string[] | undefined> {
  try {
    // Loaded on this rare failure only: no handler pays for it at cold start.
    const { DescribeTableCommand } = await import('@aws-sdk/client-dynamodb');
    const described = await client.send(new DescribeTableCommand({ TableName: table }));
    return described.Table?.KeySchema?.flatMap((k) => (k.AttributeName === undefined ? [] : [k.AttributeName]));
  } catch {
    return undefined; // no dynamodb:DescribeTable permission: the error then says what it can
  }
}

const OPTIONS_HINT =
  'set tx.outbox()\'s "sortKeyAttribute" (a string sort key) or "keyAttribute" (the partition key, default "pk") to match';

/**
 * The TypeError for a commit refused because an outbox item misses a key
 * attribute of its table, naming the table and the attribute; `undefined`
 * when the refusal is about something else (then the caller handles it).
 */
export async function outboxKeyMissing(
  client: DynamoDBDocumentClient,
  err: unknown,
  items: readonly TransactItem[],
): Promise<TypeError | undefined> {
  const candidates = suspects(err, outboxPuts(items));
  for (const put of candidates) {
    const keys = await keyAttributes(client, put.table);
    const missing = keys?.find((k) => put.item[k] === undefined);
    if (missing !== undefined) {
      return new TypeError(
        `tx.outbox(): table "${put.table}" has the key attribute "${missing}", which the outbox item lacks; ${OPTIONS_HINT} it.`,
        {
          cause: err,
        },
      );
    }
    if (keys === undefined && err instanceof Error && /key/i.test(err.message)) {
      const message = `tx.outbox(): DynamoDB refused the outbox item for table "${put.table}" (${err.message}); if a key attribute of that table is missing, ${OPTIONS_HINT} the table.`;
      return new TypeError(message, { cause: err });
    }
  }
  return undefined;
}
