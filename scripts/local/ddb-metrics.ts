/**
 * Counts DynamoDB requests made by the handlers, through a middleware on the
 * client's stack (the DocumentClient shares its client's stack, so one
 * registration sees both). Counts per operation and per table, and whether
 * each succeeded: a successful write to the orders table is a state
 * transition that really happened, whatever the handler believed.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Requests per operation, split by outcome. */
export interface RequestCounts {
  total: number;
  failed: number;
  /** By operation name, e.g. `UpdateItem`, `TransactWriteItems`; `ms` is the summed latency. */
  readonly byOperation: Record<string, { ok: number; failed: number; ms: number }>;
  /** Successful writes per table (a transaction counts once per table it writes). */
  readonly writesByTable: Record<string, number>;
  /**
   * Successful item updates per table: an `UpdateItem`, or each `Update`
   * action of a transaction that committed (group commit puts many records'
   * updates in one transaction, so requests no longer count transitions).
   */
  readonly updatesByTable: Record<string, number>;
  /** Failures by error name (e.g. `ConditionalCheckFailedException`). */
  readonly errorsByName: Record<string, number>;
}

function newRequestCounts(): RequestCounts {
  return { total: 0, failed: 0, byOperation: {}, writesByTable: {}, updatesByTable: {}, errorsByName: {} };
}

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

type Input = Record<string, unknown>;

function tablesWritten(operation: string, input: Input): string[] {
  if (operation === 'TransactWriteItems') {
    const items = (input['TransactItems'] as Array<Record<string, { TableName?: string }>> | undefined) ?? [];
    const tables = items.flatMap((item) =>
      ['Put', 'Update', 'Delete'].map((k) => item[k]?.TableName).filter((t): t is string => t !== undefined),
    );
    return [...new Set(tables)];
  }
  if (operation === 'BatchWriteItem') return Object.keys((input['RequestItems'] as Input | undefined) ?? {});
  const table = input['TableName'];
  return typeof table === 'string' ? [table] : [];
}

function tablesUpdated(operation: string, input: Input): string[] {
  if (operation === 'TransactWriteItems') {
    const items = (input['TransactItems'] as Array<{ Update?: { TableName?: string } }> | undefined) ?? [];
    return items.map((item) => item.Update?.TableName).filter((t): t is string => t !== undefined);
  }
  const table = input['TableName'];
  return operation === 'UpdateItem' && typeof table === 'string' ? [table] : [];
}

function operationOf(commandName: unknown): string {
  return typeof commandName === 'string' ? commandName.replace(/Command$/, '') : 'Unknown';
}

/**
 * Registers the counting middleware on `client` and returns the live counts.
 * Registered at `initialize`, so one `send` is one request even if the SDK
 * retries it underneath (the SDK's own retries are rare against a local JVM).
 */
export function countRequests(client: DynamoDBClient): RequestCounts {
  const counts = newRequestCounts();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = operationOf(context.commandName);
      const entry = (counts.byOperation[operation] ??= { ok: 0, failed: 0, ms: 0 });
      counts.total += 1;
      const started = performance.now();
      try {
        const result = await next(args);
        entry.ok += 1;
        if (WRITE_OPERATIONS.has(operation)) {
          for (const table of tablesWritten(operation, args.input as Input)) {
            counts.writesByTable[table] = (counts.writesByTable[table] ?? 0) + 1;
          }
          for (const table of tablesUpdated(operation, args.input as Input)) {
            counts.updatesByTable[table] = (counts.updatesByTable[table] ?? 0) + 1;
          }
        }
        return result;
      } catch (err) {
        entry.failed += 1;
        counts.failed += 1;
        const name = err instanceof Error ? err.name : 'Unknown';
        counts.errorsByName[name] = (counts.errorsByName[name] ?? 0) + 1;
        throw err;
      } finally {
        entry.ms += performance.now() - started;
      }
    },
    { step: 'initialize', name: 'effectivelyOnceLocalRequestCounter', override: true },
  );
  return counts;
}
