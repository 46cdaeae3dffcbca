/**
 * Batched completions on a table that refuses `RETURNING ALL NEW *` inside a
 * `BatchExecuteStatement`. DynamoDB Local accepts the clause there, and AWS
 * documents it only for `ExecuteStatement`, so no real server here can
 * refuse it: a stub client plays that table (what it answers is the batch
 * API's documented per-statement `ValidationError`).
 */
import { BatchExecuteStatementCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBClaimStore } from '../../../src/index.js';

function refusingReturning() {
  const sent: string[] = [];
  const client = {
    async send(command: unknown) {
      if (command instanceof BatchExecuteStatementCommand) {
        const statements = command.input.Statements ?? [];
        sent.push(...statements.map((s) => (s.Statement?.includes('RETURNING') === true ? 'batched+returning' : 'batched')));
        return {
          Responses: statements.map((s) =>
            s.Statement?.includes('RETURNING') === true
              ? { Error: { Code: 'ValidationError', Message: 'RETURNING is not supported here' } }
              : {},
          ),
        };
      }
      if (command instanceof UpdateCommand) {
        sent.push('single');
        return { Attributes: { id: command.input.Key?.['id'], status: 'COMPLETED', expiresAt: 2_000_000_000, attempts: 1 } };
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  };
  return { client: client as unknown as DynamoDBDocumentClient, sent };
}

describe('DynamoDBClaimStore.completeMany on a table that refuses RETURNING in a batch', () => {
  it('the refused completions go the single way once; later batches leave the clause out and stay batched', async () => {
    const { client, sent } = refusingReturning();
    const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
    const inputs = (prefix: string) => [1, 2, 3].map((i) => ({ id: `c#${prefix}${i}`, token: `t${i}` }));

    const first = await store.completeMany(inputs('a'));
    expect(first.map((a) => a.kind === 'result' && a.result.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(sent).toEqual(['batched+returning', 'batched+returning', 'batched+returning', 'single', 'single', 'single']);

    sent.length = 0;
    const second = await store.completeMany(inputs('b'));
    expect(second.map((a) => a.kind === 'result' && a.result.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(sent).toEqual(['batched', 'batched', 'batched']);
  });
});
