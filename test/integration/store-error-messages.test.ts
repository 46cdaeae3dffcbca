/**
 * `lastError` under `hashKeys` (issue 10, item 7): with `release:
 * 'mark-failed'` a handler's error message often holds the very key or
 * personal data `hashKeys` keeps out of the table. With `hashKeys` the
 * stored text is the error's name and a hash of its message, unless the
 * store is told `errorMessages: 'keep'`.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/engine/hashing.js';
import { DynamoDBIdempotencyStore, type DynamoDBIdempotencyStoreOptions } from '../../src/index.js';
import { sqsEvent } from '../../src/testing/index.js';
import { freshTable, testDynamo } from '../support/dynamodb.js';
import { rawItem } from '../support/store.js';
import { harness, order } from './sqs/harness.js';

async function setup(options: Partial<DynamoDBIdempotencyStoreOptions>) {
  const { client, doc } = testDynamo();
  const table = await freshTable(client);
  const store = new DynamoDBIdempotencyStore({ client: doc, tableName: table, release: 'mark-failed', ...options });
  /** Claims `key`, releases it with `error`, and returns the stored item. */
  async function failWith(key: string, error: unknown): Promise<Record<string, unknown> | undefined> {
    const claim = await store.claim({ consumer: 'mail', key, leaseMs: 30_000 });
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    expect((await store.release({ id: claim.id, token: claim.token, error })).kind).toBe('ok');
    return rawItem(doc, table, { id: claim.id });
  }
  return { failWith };
}

const email = () => `alice-${randomUUID()}@example.com`;

describe("lastError with release: 'mark-failed'", () => {
  it('hashKeys on: the name and a SHA-256 of the message are stored, never the message', async () => {
    const { failWith } = await setup({ hashKeys: true });
    const personal = email();
    const message = `mailbox ${personal} is full`;
    const item = await failWith(personal, new RangeError(message));
    expect(item?.['lastError']).toBe(`RangeError (message sha256:${sha256(message)})`);
    expect(JSON.stringify(item)).not.toContain(personal);
  });

  it('hashKeys on: a thrown non-Error is hashed too, as the log line names it (Error, its string form)', async () => {
    const { failWith } = await setup({ hashKeys: true });
    const personal = email();
    const item = await failWith(personal, `no such user ${personal}`);
    expect(item?.['lastError']).toBe(`Error (message sha256:${sha256(`no such user ${personal}`)})`);
  });

  it("hashKeys on, errorMessages: 'keep': the text is kept, by the user's choice", async () => {
    const { failWith } = await setup({ hashKeys: true, errorMessages: 'keep' });
    const personal = email();
    const item = await failWith(personal, new Error(`bounced: ${personal}`));
    expect(item?.['lastError']).toBe(`Error: bounced: ${personal}`);
  });

  it("hashKeys off: the text is kept by default; errorMessages: 'hash' hashes it", async () => {
    const kept = await setup({});
    expect((await kept.failWith(`k-${randomUUID()}`, new Error('boom')))?.['lastError']).toBe('Error: boom');
    const hashed = await setup({ errorMessages: 'hash' });
    expect((await hashed.failWith(`k-${randomUUID()}`, new Error('boom')))?.['lastError']).toBe(`Error (message sha256:${sha256('boom')})`);
  });

  it('through sqsIdempotency: a handler error holding the key leaves no trace of the key in the table', async () => {
    const h = await harness({ hashKeys: true, release: 'mark-failed' });
    const personal = email();
    const handler = h.handler(() => {
      throw new Error(`could not notify ${personal}`);
    });
    const response = await handler(sqsEvent([order(personal)]), h.context());
    expect(response.batchItemFailures).toHaveLength(1);
    const item = await rawItem(h.doc, h.table, { id: h.store.recordId('test', personal) });
    expect(item).toMatchObject({ status: 'FAILED', lastError: expect.stringMatching(/^Error \(message sha256:[0-9a-f]{64}\)$/) });
    expect(JSON.stringify(item)).not.toContain(personal);
  });

  it('errorMessages is checked like the other store options', () => {
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
    expect(() => new DynamoDBIdempotencyStore({ client, tableName: 't', errorMessages: 'drop' as never })).toThrow(TypeError);
    expect(() => new DynamoDBIdempotencyStore({ client, tableName: 't', errorMessages: 'drop' as never })).toThrow(/"errorMessages"/);
  });
});
