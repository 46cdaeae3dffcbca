/**
 * The store's batched requests: claims and fenced completions as PartiQL statements, up to 25 in one
 * `BatchExecuteStatement`, each under its single request's condition (expressions.ts); a statement or request that
 * fails is answered by the single request (claim-store.ts), so every rule of the single path holds for it.
 */
import type { BatchStatementRequest, BatchStatementResponse } from '@aws-sdk/client-dynamodb';
import { BatchExecuteStatementCommand, BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../../engine/record.js';
import { chunks } from '../../engine/chunks.js';
import { toEpochSeconds } from '../../engine/clock.js';
import type { CompleteParams } from './expressions.js';
import { ATTR } from './layout.js';
import { toRecord } from './records.js';

/** DynamoDB's limit of statements in one `BatchExecuteStatement`. */
export const MAX_BATCH_STATEMENTS = 25;

/** One statement as the DocumentClient takes it: parameters as plain values (it marshalls them). */
export type Statement = Omit<BatchStatementRequest, 'Parameters'> & { Parameters: unknown[] };

/** One statement's answer as the DocumentClient returns it: `Item` and `Error.Item` unmarshalled. */
export type StatementAnswer = Omit<BatchStatementResponse, 'Item' | 'Error'> & {
  Item?: Record<string, unknown>;
  Error?: { Code?: string; Message?: string; Item?: Record<string, unknown> };
};

/** A PartiQL identifier: double-quoted (`status`, `owner`, `result` are reserved words), quotes doubled. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A PartiQL tuple key: single-quoted, quotes doubled. */
function tupleKey(name: string): string {
  return `'${name.replaceAll("'", "''")}'`;
}

/**
 * The fresh-key claim (`claimPutRequest`'s item) as a PartiQL `INSERT`: it
 * writes only where the key has no item, and a key with one answers
 * `DuplicateItem`. That answer carries no item, even with
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` (checked on DynamoDB
 * Local), so such a key is claimed again by the single path, whose refused
 * `PutItem` returns the record that decides it.
 */
export function claimInsertStatement(tableName: string, item: Readonly<Record<string, unknown>>): Statement {
  const names = Object.keys(item);
  return {
    Statement: `INSERT INTO ${quoted(tableName)} VALUE {${names.map((n) => `${tupleKey(n)}: ?`).join(', ')}}`,
    Parameters: names.map((n) => item[n]),
  };
}

/**
 * `completeRequest` as one PartiQL `UPDATE`, only where the record is IN_PROGRESS and owned by `token` (PartiQL updates
 * only existing items). It returns the completed item (`RETURNING ALL NEW *`) for the warm-container cache, as the
 * single completion's `ALL_NEW` does; `returning: false` leaves the clause out (a table that refuses it in a batch).
 */
export function completeStatement(p: CompleteParams, returning = true): Statement {
  const sets: Array<readonly [string, unknown]> = [
    [ATTR.status, 'COMPLETED'],
    [ATTR.completedAt, p.now],
    [ATTR.expiresAt, toEpochSeconds(p.now + p.retentionMs)],
  ];
  if (p.result !== undefined) sets.push([ATTR.result, p.result]);
  const statement =
    `UPDATE ${quoted(p.tableName)}` +
    sets.map(([name]) => ` SET ${quoted(name)}=?`).join('') +
    ` REMOVE ${quoted(ATTR.inflight)} REMOVE ${quoted(ATTR.leaseUntil)}` +
    ` WHERE ${quoted(ATTR.id)}=? AND ${quoted(ATTR.status)}=? AND ${quoted(ATTR.owner)}=?` +
    (returning ? ' RETURNING ALL NEW *' : '');
  return { Statement: statement, Parameters: [...sets.map(([, value]) => value), p.id, 'IN_PROGRESS', p.token] };
}

/**
 * Sends `statements` in requests of at most {@link MAX_BATCH_STATEMENTS},
 * all at once. One entry per statement, in order: its answer, or the error
 * its whole request failed with.
 */
export async function sendStatements(
  client: DynamoDBDocumentClient,
  statements: readonly Statement[],
): Promise<Array<{ readonly answer: StatementAnswer } | { readonly failed: unknown }>> {
  const sent = await Promise.all(
    chunks(statements, MAX_BATCH_STATEMENTS).map(async (chunk) => {
      try {
        const out = await client.send(new BatchExecuteStatementCommand({ Statements: chunk }));
        const responses = (out.Responses ?? []) as StatementAnswer[];
        // A response list that does not match the statements is no answer: the single path decides each.
        if (responses.length !== chunk.length)
          throw new Error(`BatchExecuteStatement answered ${responses.length} of ${chunk.length} statements.`);
        return responses.map((answer) => ({ answer }));
      } catch (failed) {
        return chunk.map(() => ({ failed }));
      }
    }),
  );
  return sent.flat();
}

/** BatchGetItem's limit of keys per request. */
const MAX_BATCH_READ = 100;

/**
 * The records under `ids`, strongly consistent, in `BatchGetItem`s of at most 100 keys sent side by side: what the
 * `INSERT`s refused with `DuplicateItem` met, and group commit's duplicate probe. Keys without an item or left
 * unprocessed are absent (a hint: those go the single way). Throws what the reads throw.
 */
export async function readRecords(
  client: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
): Promise<Map<string, IdempotencyRecord>> {
  const outs = await Promise.all(
    chunks([...new Set(ids)], MAX_BATCH_READ).map((chunk) =>
      client.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: chunk.map((id) => ({ [ATTR.id]: id })), ConsistentRead: true } } }),
      ),
    ),
  );
  const found = new Map<string, IdempotencyRecord>();
  for (const item of outs.flatMap((out) => out.Responses?.[tableName] ?? [])) {
    const record = toRecord(item);
    found.set(record.id, record);
  }
  return found;
}
