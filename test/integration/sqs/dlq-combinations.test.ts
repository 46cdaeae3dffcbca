/**
 * Red-team combinations of `deadLetter` with FIFO groups, the
 * transaction strategy (group commit) and partial DLQ sends, on DynamoDB
 * Local with a scripted SQS client (which entries SQS takes is the test's
 * choice). Rules checked: nothing is acknowledged before an earlier record of
 * its FIFO group that comes back; nothing is acknowledged unsent.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deadLetter,
  jsonBody,
  PermanentError,
  sqsIdempotency,
  type SqsIdempotencyOptions,
  claim,
  transaction,
} from '../../../src/index.js';
import type { RecordHandler } from '../../../src/batch/runner-link.js';
import { sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import { failedIds, harness, order, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await harness();
});

interface SentEntry {
  readonly Id: string;
  readonly MessageBody: string;
}

/** An SQS client that takes every DLQ entry except those whose body `refuse` names. */
function scriptedSqs(refuse: (body: string) => boolean = () => false) {
  const sent: string[] = [];
  const client = {
    send: async (command: { input: { Entries?: SentEntry[] } }) => {
      const entries = command.input.Entries ?? [];
      const ok = entries.filter((e) => !refuse(e.MessageBody));
      sent.push(...ok.map((e) => e.MessageBody));
      return {
        Successful: ok.map((e) => ({ Id: e.Id, MessageId: `dlq-${e.Id}`, MD5OfMessageBody: '' })),
        Failed: entries.filter((e) => refuse(e.MessageBody)).map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
      };
    },
  };
  return { client: client as unknown as SQSClient, sent };
}

const fifoRaw = (body: string, groupId: string): SQSRecord =>
  sqsRecord({ body, queueArn: 'arn:aws:sqs:us-east-1:123456789012:orders.fifo', groupId });

const handlerFn: RecordHandler = (_record, { key }) => {
  if (key.startsWith('perm-')) throw new PermanentError(`gone: ${key}`);
  if (key.startsWith('fail-')) throw new Error('downstream timeout');
  h.effects.set(key, (h.effects.get(key) ?? 0) + 1);
};

describe('deadLetter x FIFO', () => {
  it('does not dead-letter an invalid record behind a record of its group that comes back', async () => {
    const { client, sent } = scriptedSqs();
    const first = order('fail-fifo-1', {}, { groupId: 'g-inv' });
    const bad = fifoRaw('{not json', 'g-inv');
    const third = order('ok-fifo-3', {}, { groupId: 'g-inv' });
    const other = order('ok-fifo-other', {}, { groupId: 'g-other' });
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq.fifo' }) });
    const response = await handler(sqsEvent([first, bad, third, other]), h.context());
    expect(failedIds(response)).toEqual([first.messageId, bad.messageId, third.messageId]);
    expect(sent).toEqual([]);
    expect(h.effects.get('ok-fifo-other')).toBe(1);
    expect(h.effects.get('ok-fifo-3')).toBeUndefined();
  });

  it('does not dead-letter an invalid record behind an in-progress record of its group', async () => {
    const { client, sent } = scriptedSqs();
    const busy = await h.store.claim({
      id: h.store.recordId('test', 'ok-busy'),
      key: 'ok-busy',
      consumer: 'test',
      leaseMs: 60_000,
      messageId: 'x',
    } as never);
    expect(busy.kind).toBe('claimed');
    const first = order('ok-busy', {}, { groupId: 'g-busy' });
    const bad = fifoRaw('{"noKey":1}', 'g-busy');
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq.fifo' }) });
    const response = await handler(sqsEvent([first, bad]), h.context());
    expect(failedIds(response)).toEqual([first.messageId, bad.messageId]);
    expect(sent).toEqual([]);
  });

  it('a partial DLQ send never acknowledges a later record of the group whose earlier record was refused', async () => {
    const first = order('perm-fifo-refused', {}, { groupId: 'g-part' });
    const bad = fifoRaw('{broken', 'g-part');
    const { client } = scriptedSqs((body) => body.includes('perm-fifo-refused'));
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq.fifo' }) });
    const lines = h.lines.length;
    const response = await handler(sqsEvent([first, bad]), h.context());
    expect(failedIds(response)).toEqual([first.messageId, bad.messageId]);
    const line = h.lines.slice(lines).at(-1);
    expect(line?.counts['dead-lettered']).toBe(0);
    expect(line?.sqsErrors?.join()).toMatch(/refused/);
  });

  it('a partial DLQ send on a standard queue acknowledges exactly the records SQS took', async () => {
    const a = order('perm-std-a');
    const b = order('perm-std-b');
    const bad = sqsRecord({ body: '{broken' });
    const { client, sent } = scriptedSqs((body) => body.includes('perm-std-b'));
    const handler = h.handler(handlerFn, { deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq' }) });
    const response = await handler(sqsEvent([a, b, bad]), h.context());
    expect(failedIds(response)).toEqual([b.messageId]);
    expect(sent.sort()).toEqual([a.body, bad.body].sort());
  });
});

describe('deadLetter x a handler without eachRecord', () => {
  /** A handler that answers the batch itself (reads event.Records, never calls eachRecord). */
  const plain = (options: Partial<SqsIdempotencyOptions>) =>
    middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (line) => h.lines.push(line),
          ...options,
        }),
      )
      .handler(async () => ({ batchItemFailures: [] }));
  // A user rule that treats TypeErrors as bugs in the message: it must not be asked about the library's own usage errors.
  const isPermanent = (e: unknown) => e instanceof TypeError;

  it("pipelined claims: every record comes back, none dead-lettered (the library's TypeError is not about the message)", async () => {
    const { client, sent } = scriptedSqs();
    const records = [order('pipe-unrun-a'), order('pipe-unrun-b')];
    const handler = plain({
      strategy: claim({ pipelined: true }),
      deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq', isPermanent }),
    });
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
    expect(sent).toEqual([]);
    expect(h.lines.at(-1)?.counts['dead-lettered']).toBe(0);
  });

  it('strategy "transaction": every record comes back, none dead-lettered', async () => {
    const { client, sent } = scriptedSqs();
    const records = [order('tx-unrun-a'), order('tx-unrun-b')];
    const handler = plain({ strategy: transaction(), deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq', isPermanent }) });
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
    expect(sent).toEqual([]);
  });
});

describe('deadLetter x a handler that throws for the whole batch', () => {
  it('records it never reached come back, whatever isPermanent says about the error (they never ran)', async () => {
    const { client, sent } = scriptedSqs();
    const records = [order('batch-throw-a'), order('batch-throw-b')];
    const handler = middy<SQSEvent, SQSBatchResponse>()
      .use(
        sqsIdempotency({
          store: h.store,
          consumer: 'test',
          key: (r) => jsonBody<{ orderNo: string }>(r).orderNo,
          logger: (line) => h.lines.push(line),
          deadLetter: deadLetter({ sqs: client, dlqUrl: 'https://sqs/dlq', isPermanent: (e) => e instanceof SyntaxError }),
        }),
      )
      .handler(async () => {
        JSON.parse('{ a broken config');
        return { batchItemFailures: [] };
      });
    const response = await handler(sqsEvent(records), h.context());
    expect(failedIds(response)).toEqual(records.map((r) => r.messageId));
    expect(sent).toEqual([]);
    expect(h.lines.at(-1)?.counts.failed).toBe(2);
    expect(await h.store.get(h.store.recordId('test', 'batch-throw-a'))).toBeUndefined();
  });
});
