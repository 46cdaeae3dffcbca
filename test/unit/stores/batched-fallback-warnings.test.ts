/**
 * A store that turns its batched requests off (a role refused PartiQL or BatchGetItem, a table that refuses
 * `RETURNING` in a batch) says so once, at WARN, naming the missing IAM action or the cause. DynamoDB Local has no
 * IAM and accepts `RETURNING` in a batch, so no real server here can refuse either: a stub client plays the role and
 * the table, answering what AWS documents (`AccessDeniedException` for the request, the batch API's per-statement
 * `AccessDenied` and `ValidationError` codes).
 */
import {
  BatchExecuteStatementCommand,
  BatchGetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DynamoDBClaimStore, DynamoDBIdempotencyStore } from '../../../src/index.js';

type Line = Record<string, unknown>;

function denied(action: string): Error {
  const error = new Error(
    `User: arn:aws:sts::123456789012:assumed-role/consumer/fn is not authorized to perform: ${action} on resource: arn:aws:dynamodb:eu-west-1:123456789012:table/idempotency because no identity-based policy allows the ${action} action`,
  );
  error.name = 'AccessDeniedException';
  return error;
}

/** A client whose batch requests are refused as `refuse` says; single requests succeed. */
function stubClient(refuse: {
  readonly batch?: 'request' | 'statement' | 'returning';
  readonly batchGet?: boolean;
  readonly duplicates?: boolean;
}) {
  const sent: string[] = [];
  const client = {
    async send(command: unknown) {
      if (command instanceof BatchExecuteStatementCommand) {
        const statements = command.input.Statements ?? [];
        sent.push('batch');
        const verb = statements[0]?.Statement?.startsWith('INSERT') === true ? 'dynamodb:PartiQLInsert' : 'dynamodb:PartiQLUpdate';
        if (refuse.batch === 'request') throw denied(verb);
        return {
          Responses: statements.map((s) => {
            if (refuse.batch === 'statement') return { Error: { Code: 'AccessDenied', Message: 'Access denied' } };
            if (refuse.batch === 'returning' && s.Statement?.includes('RETURNING') === true)
              return { Error: { Code: 'ValidationError', Message: 'RETURNING is not supported here' } };
            if (refuse.duplicates === true) return { Error: { Code: 'DuplicateItem', Message: 'Duplicate primary key exists in table' } };
            return {};
          }),
        };
      }
      if (command instanceof BatchGetCommand) {
        sent.push('batch-get');
        if (refuse.batchGet === true) throw denied('dynamodb:BatchGetItem');
        return { Responses: {} };
      }
      if (command instanceof PutCommand) {
        sent.push('single');
        return {};
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

const claims = (prefix: string) => [1, 2, 3].map((i) => ({ consumer: 'c', key: `${prefix}${i}`, leaseMs: 30_000 }));
const completions = (prefix: string) => [1, 2, 3].map((i) => ({ id: `c#${prefix}${i}`, token: `t${i}` }));

function storeWith(refuse: Parameters<typeof stubClient>[0]) {
  const { client, sent } = stubClient(refuse);
  const lines: Line[] = [];
  const store = new DynamoDBClaimStore({ client, tableName: 'idempotency', logger: (line) => lines.push({ ...line }) });
  return { store, sent, lines };
}

describe('DynamoDBClaimStore: batched requests turned off are logged once, at WARN', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a role refused PartiQLInsert: one WARN line naming the action, then one request per claim without another line', async () => {
    const { store, sent, lines } = storeWith({ batch: 'request' });
    await store.claimMany(claims('a'));
    await store.claimMany(claims('b'));
    await store.completeMany(completions('a'));
    expect(sent.filter((s) => s === 'batch')).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      kind: 'batching-off',
      tableName: 'idempotency',
      missingAction: 'dynamodb:PartiQLInsert',
    });
    expect(String(lines[0]?.['message'])).toContain('dynamodb:PartiQLInsert');
    expect(lines[0]?.['error']).toMatchObject({ name: 'AccessDeniedException' });
  });

  it('statements refused AccessDenied without naming the action: the action comes from the statement (an UPDATE)', async () => {
    const { store, lines } = storeWith({ batch: 'statement' });
    const answers = await store.completeMany(completions('a'));
    expect(answers.map((a) => a.kind === 'result' && a.result.kind)).toEqual(['ok', 'ok', 'ok']);
    await store.completeMany(completions('b'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'WARN', kind: 'batching-off', missingAction: 'dynamodb:PartiQLUpdate' });
  });

  it('a table refusing RETURNING in a batch: one WARN line with the cause, and batches stay on without the clause', async () => {
    const { store, sent, lines } = storeWith({ batch: 'returning' });
    await store.completeMany(completions('a'));
    await store.completeMany(completions('b'));
    expect(sent.filter((s) => s === 'batch')).toHaveLength(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'WARN', kind: 'returning-off', tableName: 'idempotency' });
    expect(lines[0]).not.toHaveProperty('missingAction');
    expect(String(lines[0]?.['message'])).toContain('RETURNING');
    expect(lines[0]?.['error']).toMatchObject({ name: 'ValidationError', message: 'RETURNING is not supported here' });
  });

  it('a role refused BatchGetItem (the read after DuplicateItem): one WARN line naming it', async () => {
    const { store, lines } = storeWith({ duplicates: true, batchGet: true });
    await store.claimMany(claims('a'));
    await store.claimMany(claims('b'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'WARN', kind: 'batch-read-denied', missingAction: 'dynamodb:BatchGetItem' });
  });

  it('group commit’s probe refused BatchGetItem: one WARN line naming it, and the probe still fails as before', async () => {
    const { client } = stubClient({ batchGet: true });
    const lines: Line[] = [];
    const store = new DynamoDBIdempotencyStore({ client, tableName: 'idempotency', logger: (line) => lines.push({ ...line }) });
    await expect(store.getMany(['c#1'])).rejects.toThrow(/BatchGetItem/);
    await expect(store.getMany(['c#2'])).rejects.toThrow(/BatchGetItem/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: 'batch-read-denied', missingAction: 'dynamodb:BatchGetItem' });
  });

  it('by default the line is one JSON line on stdout, as the middlewares log; `logger: false` logs nothing', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const { client } = stubClient({ batch: 'request' });
    await new DynamoDBClaimStore({ client, tableName: 'idempotency' }).claimMany(claims('a'));
    expect(log).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(log.mock.calls[0]?.[0]))).toMatchObject({ level: 'WARN', missingAction: 'dynamodb:PartiQLInsert' });

    log.mockClear();
    await new DynamoDBClaimStore({ client, tableName: 'idempotency', logger: false }).claimMany(claims('b'));
    expect(log).not.toHaveBeenCalled();
  });

  it('a logger that throws fails no claim', async () => {
    const { client } = stubClient({ batch: 'request' });
    const store = new DynamoDBClaimStore({
      client,
      tableName: 'idempotency',
      logger: () => {
        throw new Error('log sink down');
      },
    });
    const answers = await store.claimMany(claims('a'));
    expect(answers.map((a) => a.kind === 'result' && a.result.kind)).toEqual(['claimed', 'claimed', 'claimed']);
  });

  it('`logger` must be a function or false', () => {
    const { client } = stubClient({});
    expect(() => new DynamoDBClaimStore({ client, tableName: 't', logger: 'console' as never })).toThrow(
      /option "logger" must be a function or false/,
    );
  });
});
