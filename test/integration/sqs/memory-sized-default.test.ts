/**
 * Issue 31 item 4, on DynamoDB Local: `sqsIdempotency` without a strategy
 * claims a batch in one `BatchExecuteStatement` at 256 MB and, at 1,024 MB
 * (once its first batch showed `eachRecord` takes the records), each record
 * with its own request; a batch with duplicates (a key twice, a key already
 * done) and a failing record gets the same response and effects at both.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sqsEvent } from '../../../src/testing/index.js';
import { countRequests } from '../../support/store.js';
import { failedIds, harness, order } from './harness.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('sqsIdempotency without a strategy, by AWS_LAMBDA_FUNCTION_MEMORY_SIZE, on DynamoDB Local', () => {
  for (const memory of ['256', '1024']) {
    it(`${memory} MB: a batch with duplicates and a failure, claimed ${memory === '256' ? 'as a batch' : 'record by record'}`, async () => {
      const h = await harness();
      vi.stubEnv('AWS_LAMBDA_FUNCTION_MEMORY_SIZE', memory);
      const handler = h.handler(async (_r, { key }) => {
        if (key === 'o-bad') throw new Error('boom');
        h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
      });
      vi.unstubAllEnvs();
      const requests = countRequests(h.doc);

      // The first batch: batched claims at both sizes (at 1,024 MB it shows that eachRecord takes the records).
      expect(failedIds(await handler(sqsEvent([order('o-done'), order('o-first')]), h.context()))).toEqual([]);
      expect(requests.commands).toContain('BatchExecuteStatementCommand');
      requests.reset();

      const a1 = order('o-a');
      const bad = order('o-bad');
      const a2 = order('o-a');
      const done = order('o-done');
      const b = order('o-b');
      const batch = [a1, bad, a2, done, b];
      expect(failedIds(await handler(sqsEvent(batch), h.context()))).toEqual([bad.messageId]);
      const { commands } = requests;
      const puts = commands.filter((c) => c === 'PutItemCommand');
      if (memory === '256') {
        // The claims in one PartiQL batch (the completions in another), no single claim.
        expect(commands[0]).toBe('BatchExecuteStatementCommand');
        expect(puts).toEqual([]);
      } else {
        // One conditional put per first copy of a key (o-a, o-bad, o-done, o-b), nothing batched.
        expect(puts).toHaveLength(4);
        expect(commands).not.toContain('BatchExecuteStatementCommand');
      }
      expect(h.lines.at(-1)?.counts).toMatchObject({ completed: 2, duplicate: 2, failed: 1 });

      // Redelivered: everything but the failed record is a duplicate; the failed one runs now... and fails again.
      expect(failedIds(await handler(sqsEvent(batch), h.context()))).toEqual([bad.messageId]);
      expect(h.lines.at(-1)?.counts).toMatchObject({ duplicate: 4, failed: 1 });
      expect(Object.fromEntries(h.effects)).toEqual({ 'o-done': 1, 'o-first': 1, 'o-a': 1, 'o-b': 1 });
      expect((await h.store.get(h.store.recordId('test', 'o-bad')))?.status).not.toBe('COMPLETED');
    });
  }
});
