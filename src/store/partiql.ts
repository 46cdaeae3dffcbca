/**
 * The completion as a PartiQL statement, for coalesced completions
 * (`BatchExecuteStatement`): the same fence and the same writes as
 * `completeRequest` (src/store/expressions.ts), so a record completed either
 * way is the same item, and a refused statement means what a refused
 * completion means.
 */
import type { BatchStatementRequest } from '@aws-sdk/client-dynamodb';
import { toEpochSeconds } from '../core/clock.js';
import type { CompleteParams } from './expressions.js';
import { ATTR } from './layout.js';

/** At most this many statements in one `BatchExecuteStatement` (DynamoDB's limit). */
export const MAX_BATCH_STATEMENTS = 25;

/** A statement as the DocumentClient takes it: parameters are plain values. */
export type CompleteStatement = Omit<BatchStatementRequest, 'Parameters'> & { Parameters: unknown[] };

/** A PartiQL identifier: double-quoted (`status`, `owner`, `result` are reserved), quotes doubled. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The fenced completion of `completeRequest` as one PartiQL `UPDATE`: sets
 * COMPLETED, `completedAt`, the retention TTL and (when stored) the result,
 * removes `inflight` and `leaseUntil`, where the record is IN_PROGRESS and
 * owned by `token`. A missing item fails the condition too (PartiQL updates
 * only existing items), as the fenced `UpdateItem` does. A refusal returns the
 * item it found (`ALL_OLD`), read like a refused single completion.
 *
 * @example
 * ```ts
 * import { completeStatement } from './partiql.js';
 * const statement = completeStatement({ tableName: 't', id: 'c#k', token: 'tok', now: Date.now(), retentionMs: 86_400_000 });
 * ```
 */
export function completeStatement(p: CompleteParams): CompleteStatement {
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
    ` WHERE ${quoted(ATTR.id)}=? AND ${quoted(ATTR.status)}=? AND ${quoted(ATTR.owner)}=?`;
  return {
    Statement: statement,
    Parameters: [...sets.map(([, value]) => value), p.id, 'IN_PROGRESS', p.token],
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}
