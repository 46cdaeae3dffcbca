/**
 * Red team of the PutItem claim through the SQS middleware: two invocations
 * whose batches overlap (the same keys, a key twice in one batch, a handler
 * failure in the middle) run at once on DynamoDB Local, then the queue
 * redelivers what they reported. Whatever the interleaving: no record is
 * acknowledged before its key's effect is applied, and no effect twice.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { claim, type SqsIdempotencyOptions } from '../../../src/index.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { sqsEvent } from '../../../src/testing/index.js';
import { failedIds, harness, order } from '../sqs/harness.js';

const variants: ReadonlyArray<{ name: string; options: Partial<SqsIdempotencyOptions>; fifo: boolean }> = [
  { name: 'standard queue, batched claims', options: {}, fifo: false },
  { name: 'standard queue, pipelined claims', options: { strategy: claim({ pipelined: true }) }, fifo: false },
  { name: 'FIFO queue, one group', options: {}, fifo: true },
];

describe('overlapping batches racing on fresh keys (claim strategy, PutItem claims)', () => {
  for (const v of variants) {
    it(`${v.name}: every acknowledged record's effect is applied, every effect once`, async () => {
      const h = await harness();
      for (let round = 0; round < 6; round += 1) {
        const k = (n: number) => `r${round}-k${n}-${v.fifo ? 'f' : 's'}${v.options.strategy === undefined ? '' : 'pipelined'}`;
        const failedOnce = new Set<string>();
        const effects = new Map<string, number>();
        // k2's first execution fails (a failure in the middle of both batches).
        const fn: RecordHandler = async (_record, { key }) => {
          await new Promise((resolve) => setImmediate(resolve));
          if (key === k(2) && !failedOnce.has(key)) {
            failedOnce.add(key);
            throw new Error('planned failure');
          }
          effects.set(key, (effects.get(key) ?? 0) + 1);
        };
        const rec = (n: number) => order(k(n), {}, v.fifo ? { groupId: 'g' } : {});
        const x = [rec(1), rec(1), rec(2), rec(3)];
        const y = [rec(3), rec(1), rec(2), rec(4)];
        const handler = h.handler(fn, v.options);
        let pending: SQSRecord[][] = [x, y];
        for (let delivery = 0; pending.length > 0; delivery += 1) {
          expect(delivery, 'all records acknowledged within a few redeliveries').toBeLessThan(6);
          const responses = await Promise.all(pending.map((batch) => handler(sqsEvent(batch), h.context())));
          const next: SQSRecord[][] = [];
          responses.forEach((response, i) => {
            const batch = pending[i] ?? [];
            const failed = new Set(failedIds(response));
            for (const record of batch) {
              if (failed.has(record.messageId)) continue;
              const key = (JSON.parse(record.body) as { orderNo: string }).orderNo;
              expect(effects.get(key), `${record.messageId} (${key}) acknowledged before its effect`).toBe(1);
            }
            const again = batch.filter((r) => failed.has(r.messageId));
            if (again.length > 0) next.push(again);
          });
          pending = next;
        }
        for (const n of [1, 2, 3, 4]) expect(effects.get(k(n)), k(n)).toBe(1);
      }
    });
  }
});
