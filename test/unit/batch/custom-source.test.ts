/**
 * A source the lifecycle has never seen (a toy stream: items with a sequence
 * number and a shard), built from a `BatchSource` object alone: claims,
 * duplicates, shard order, the response shape and the log line all come from
 * the lifecycle, and each record is settled exactly once.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidRecordError } from '../../../src/engine/errors.js';
import { claim } from '../../../src/strategies/claim/claim.js';
import { batchIdempotency } from '../../../src/batch/middleware.js';
import { eachRecord } from '../../../src/sources/each-record.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { commonDefaults } from '../../../src/batch/options.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import type { BatchSource } from '../../../src/engine/source.js';
import { lambdaContext, MemoryIdempotencyStore } from '../../../src/testing/index.js';

interface Item {
  readonly seq: string;
  readonly shard: string;
  readonly data: string;
}
interface ItemEvent {
  readonly items: readonly Item[];
}
interface ItemResponse {
  readonly retry: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** How often the lifecycle read each item: once per invocation (`readOnce`), however often it needs its id or lane. */
const reads = new Map<Item, number>();

// A handful of members, and nothing of the source anywhere else: the log line's `source` is its name.
const itemSource: BatchSource<ItemEvent, Item, ItemResponse> = {
  name: 'items',
  records(e) {
    const items = isObject(e) ? e['items'] : undefined;
    if (!Array.isArray(items)) return { refused: 'not an item event: it has no items' };
    const i = items.findIndex((r) => !isObject(r) || typeof r['seq'] !== 'string');
    return i < 0 ? (items as Item[]) : { refused: `not an item event: item ${i} has no seq` };
  },
  withRecords: (e, items) => ({ ...e, items: [...items] }),
  read: (r) => {
    reads.set(r, (reads.get(r) ?? 0) + 1);
    return {
      id: r.seq,
      lane: r.shard,
      attempt: 1,
      unreadable: r.data.length === 0 ? new InvalidRecordError(`Item ${r.seq} is empty.`) : undefined,
    };
  },
  respond: (retry) => ({ retry }),
  retriedIn: (response) => new Set((response as Partial<ItemResponse> | undefined)?.retry ?? []),
};

/** A memory store that counts the writes that settle a claim, by record id. */
class CountingStore extends MemoryIdempotencyStore {
  readonly settles = new Map<string, number>();
  override async complete(input: Parameters<MemoryIdempotencyStore['complete']>[0]) {
    this.settles.set(input.id, (this.settles.get(input.id) ?? 0) + 1);
    return super.complete(input);
  }
  override async release(input: Parameters<MemoryIdempotencyStore['release']>[0]) {
    this.settles.set(input.id, (this.settles.get(input.id) ?? 0) + 1);
    return super.release(input);
  }
}

function rig() {
  const store = new CountingStore();
  const lines: BatchLogLine[] = [];
  const ran: string[] = [];
  const fn: RecordHandler<void, Item> = (item) => {
    ran.push(item.seq);
    if (item.data === 'boom') throw new Error('boom');
  };
  const config = {
    ...commonDefaults,
    store,
    consumer: 'items',
    key: (item: Item) => item.data,
    payload: false as const,
    storeResult: false,
    logger: (line: BatchLogLine) => void lines.push(line),
    autoSafetyMargin: { maxMs: 0, fraction: 0 },
  };
  const handler = middy<ItemEvent, ItemResponse>()
    .use(
      batchIdempotency(itemSource, {
        ...config,
        owner: 'itemIdempotency',
        steps: claim().batch({ ...config, owner: 'itemIdempotency' }),
      }),
    )
    .handler(eachRecord(fn as unknown as RecordHandler) as unknown as (e: ItemEvent, c: Context) => Promise<ItemResponse>);
  return { store, lines, ran, handler };
}

const item = (seq: string, data: string, shard = 's1'): Item => ({ seq, shard, data });

describe('a new source is one BatchSource object', () => {
  it('runs, deduplicates, keeps shard order, answers in its own shape, and settles each record once', async () => {
    const { store, lines, ran, handler } = rig();
    const batch = {
      items: [item('1', 'a'), item('2', 'boom'), item('3', 'b'), item('4', 'c', 's2'), item('5', '', 's3'), item('6', 'c', 's2')],
    };
    const response = await handler(batch, lambdaContext());
    // '2' failed, so '3' behind it in shard s1 was not started; '5' is unreadable; '6' is a copy of '4'.
    expect(response).toEqual({ retry: ['2', '3', '5'] });
    expect([...ran].sort()).toEqual(['1', '2', '4']);
    expect([...store.settles.values()].every((n) => n === 1)).toBe(true);
    expect(store.settles.get('items#a')).toBe(1);
    expect(store.settles.get('items#boom')).toBe(1);
    expect(lines[0]?.source).toBe('items');
    expect(batch.items.map((i) => reads.get(i))).toEqual([1, 1, 1, 1, 1, 1]);
    expect(lines[0]?.counts).toMatchObject({ completed: 2, failed: 1, invalid: 1, 'not-started': 1, duplicate: 1 });

    const again = await handler({ items: [item('7', 'a'), item('8', 'b')] }, lambdaContext());
    expect(again).toEqual({ retry: [] });
    expect([...ran].sort()).toEqual(['1', '2', '4', '8']); // 'a' is a duplicate, 'b' runs now
  });

  it('refuses an event that is not the source’s, naming the middleware', async () => {
    const { handler } = rig();
    await expect(handler({} as ItemEvent, lambdaContext())).rejects.toThrow(
      /^itemIdempotency: the event is not an item event: it has no items\.$/,
    );
  });
});
