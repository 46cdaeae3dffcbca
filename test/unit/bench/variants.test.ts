import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Request } from '@middy/core';
import { describe, expect, it } from 'vitest';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { copyEvent, selectVariants, variantIds, variants } from '../../../bench/variants.js';

describe('the variants', () => {
  it('are each defined once, and every one compared with a Powertools variant finds it', () => {
    expect(new Set(variantIds).size).toBe(variantIds.length);
    for (const v of variants) if (v.comparedWith !== undefined) expect(variantIds).toContain(v.comparedWith);
  });

  it('run the copying-middleware default by default, against Powertools', () => {
    const copy = variants.find((v) => v.id === 'ours-default-copy');
    expect(copy).toMatchObject({ comparedWith: 'powertools', idempotent: true, business: 'points' });
    expect(copy?.optional).toBeUndefined();
    expect(selectVariants([]).map((v) => v.id)).toContain('ours-default-copy');
    expect(selectVariants(['ours-default-copy']).map((v) => v.id)).toEqual(['powertools', 'ours-default-copy']);
  });

  it("runs claim() spelled out only when named: it is the default's strategy, with the same requests", () => {
    expect(variants.find((v) => v.id === 'ours-claim')).toMatchObject({ optional: true, comparedWith: 'powertools' });
    expect(selectVariants([]).map((v) => v.id)).not.toContain('ours-claim');
    expect(selectVariants(['ours-claim']).map((v) => v.id)).toEqual(['powertools', 'ours-claim']);
  });

  it('copyEvent replaces the event with a copy that keeps the records and adds the time it came (a middleware after ours)', async () => {
    const event = sqsEvent([sqsRecord({ body: { orderNo: 'o-1' } })]);
    const request = { event, context: {}, response: undefined, error: undefined, internal: {} } as unknown as Request<
      SQSEvent,
      SQSBatchResponse
    >;
    await copyEvent.before?.(request);
    expect(request.event).not.toBe(event);
    expect(request.event.Records).toBe(event.Records);
    expect(typeof (request.event as SQSEvent & { receivedAt?: unknown }).receivedAt).toBe('number');
  });
});
