/**
 * The switch from Powertools 2.35.0 (makeIdempotent + processPartialResponse with BatchProcessor, its
 * DynamoDBPersistenceLayer) to sqsIdempotency + eachRecord with `previous: powertoolsRecords(...)`, on DynamoDB Local:
 * Powertools' real handler processes a set of messages (completing some, failing one, dying in the middle of one,
 * still working on one at the switch); then ours gets the same messages again (same message ids and bodies, as SQS
 * redelivers them) on the same tables. Every effect is applied exactly once.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { DynamoDBClaimStore, DynamoDBIdempotencyStore, eachRecord, jsonBody, sqsIdempotency, transaction } from '../../../src/index.js';
import { powertoolsKey, powertoolsRecords } from '../../../src/powertools/index.js';
import { abandon, Deferred, invoke, lambdaContext, sqsEvent, sqsRecord } from '../../../src/testing/index.js';
import type { BatchLogLine } from '../../../src/observe/log.js';
import { cutoverRig, FUNCTION_NAME, inFunction, type CutoverRig } from './rig.js';

const orderNo = (r: SQSRecord): string => jsonBody<{ orderNo: string }>(r).orderNo;
const WINDOW_MS = 2 * 60 * 60_000;

/** What Powertools' record handler does before its effect, per order: die there, wait, or fail. */
type Plan = Record<string, () => Promise<void>>;

/** The function before the switch: Powertools' documented SQS pattern, keyed on the body's orderNo. */
function powertoolsHandler(rig: CutoverRig, plan: Plan = {}) {
  const persistenceStore = inFunction(() => new DynamoDBPersistenceLayer({ tableName: rig.powertoolsTable, awsSdkV3Client: rig.client }));
  const config = new IdempotencyConfig({ eventKeyJmesPath: 'powertools_json(body).orderNo' });
  const processor = new BatchProcessor(EventType.SQS);
  const onRecord = makeIdempotent(
    async (record: SQSRecord): Promise<void> => {
      await plan[orderNo(record)]?.();
      await rig.effect(orderNo(record));
    },
    { persistenceStore, config },
  );
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    config.registerLambdaContext(context);
    return processPartialResponse(event, onRecord, processor, { context });
  };
}

/** The function after the switch: ours, consulting Powertools' records until `until`. */
function oursHandler(rig: CutoverRig, lines: BatchLogLine[], strategy: 'claim' | 'transaction' = 'claim') {
  const { clock } = rig;
  const until = new Date(clock.now() + WINDOW_MS);
  const previous = inFunction(() =>
    powertoolsRecords({ client: rig.previousDoc, tableName: rig.powertoolsTable, key: orderNo, until, clock }),
  );
  const options = { client: rig.doc, tableName: rig.oursTable, clock };
  const common = { consumer: 'orders', key: orderNo, previous, logger: (line: BatchLogLine) => lines.push(line) };
  if (strategy === 'transaction') {
    const store = new DynamoDBIdempotencyStore(options);
    return middy<SQSEvent, SQSBatchResponse>()
      .use(sqsIdempotency({ ...common, store, strategy: transaction() }))
      .handler(
        eachRecord.inTransaction(async (record, { tx }) => {
          tx.update({
            TableName: rig.effectsTable,
            Key: { pk: orderNo(record) },
            UpdateExpression: 'ADD n :one',
            ExpressionAttributeValues: { ':one': 1 },
          });
        }),
      );
  }
  return middy<SQSEvent, SQSBatchResponse>()
    .use(sqsIdempotency({ ...common, store: new DynamoDBClaimStore(options) }))
    .handler(eachRecord(async (record) => rig.effect(orderNo(record))));
}

/** The same message as SQS delivers it again: same id and body, one more receive. */
const redelivered = (record: SQSRecord): SQSRecord =>
  sqsRecord({ body: record.body, messageId: record.messageId, receiveCount: Number(record.attributes.ApproximateReceiveCount) + 1 });

const failed = (response: SQSBatchResponse | undefined): string[] => (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);

describe('switching an SQS consumer from Powertools idempotency + batch', () => {
  it('applies every effect exactly once across the switch; an in-progress one waits for Powertools’ claim to end', async () => {
    const rig = await cutoverRig();
    const m = Object.fromEntries(
      ['o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7'].map((o) => [o, sqsRecord({ body: JSON.stringify({ orderNo: o }) })]),
    );
    const record = (o: string): SQSRecord => m[o] as SQSRecord;
    const stillWorking = new Deferred();
    const plan: Plan = {
      o4: () => abandon('the Lambda dies before the effect'),
      o5: async () => {
        throw new Error('the effect failed');
      },
      o6: () => stillWorking.promise,
    };
    const powertools = powertoolsHandler(rig, plan);
    // Before the switch: Powertools completes o1-o3, dies in o4 (its record stays INPROGRESS), fails o5 (deleted).
    const done = await invoke(powertools, sqsEvent(['o1', 'o2', 'o3'].map(record)), { timeoutMs: 60_000 });
    expect(done.kind === 'returned' && failed(done.value)).toEqual([]);
    expect((await invoke(powertools, sqsEvent([record('o4')]), { timeoutMs: 60_000 })).kind).toBe('crashed');
    const o5 = await invoke(powertools, sqsEvent([record('o5')]), { timeoutMs: 60_000 });
    expect(o5.kind === 'threw' || (o5.kind === 'returned' && failed(o5.value).length === 1)).toBe(true);
    // ... and is still working on o6 when the new code takes over.
    const o6 = invoke(powertools, sqsEvent([record('o6')]), { timeoutMs: 60_000 });
    const held = inFunction(() => powertoolsKey(FUNCTION_NAME, 'o6'));
    while ((await rig.powertoolsItem(held))?.['status'] !== 'INPROGRESS') await new Promise((r) => setTimeout(r, 10));
    expect((await rig.powertoolsItem(powertoolsKey(FUNCTION_NAME, 'o4')))?.['status']).toBe('INPROGRESS');

    // The switch: SQS delivers every message again (a failed delete, a visibility timeout) and o7 for the first time.
    const lines: BatchLogLine[] = [];
    const ours = oursHandler(rig, lines);
    const context = () => lambdaContext({ clock: rig.clock, timeoutMs: 60_000, functionName: FUNCTION_NAME });
    const all = ['o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7'].map((o) => redelivered(record(o)));
    const first = await ours(sqsEvent(all), context());
    expect(failed(first).sort()).toEqual([record('o4').messageId, record('o6').messageId].sort());
    expect(lines.at(-1)?.counts).toMatchObject({ duplicate: 3, completed: 2, 'in-progress': 2 });
    expect(await rig.effects()).toEqual({ o1: 1, o2: 1, o3: 1, o5: 1, o7: 1 });

    // Powertools' invocation still working on o6 finishes; the redelivery finds its record COMPLETED.
    stillWorking.resolve();
    expect((await o6).kind).toBe('returned');
    expect(failed(await ours(sqsEvent([redelivered(record('o6'))]), context()))).toEqual([]);
    expect(lines.at(-1)?.counts.duplicate).toBe(1);

    // o4 comes back while Powertools' dead claim is live: not run. Once its in_progress_expiration passes: run, once.
    expect(failed(await ours(sqsEvent([redelivered(record('o4'))]), context()))).toEqual([record('o4').messageId]);
    const o4Item = await rig.powertoolsItem(powertoolsKey(FUNCTION_NAME, 'o4'));
    rig.clock.advanceTo((o4Item?.['in_progress_expiration'] as number) + 1);
    expect(failed(await ours(sqsEvent([redelivered(record('o4'))]), context()))).toEqual([]);
    expect(lines.at(-1)?.counts.completed).toBe(1);

    // From now on every key is ours: redeliveries are our duplicates, without a read of Powertools' table.
    const reads = rig.powertoolsReads();
    expect(failed(await ours(sqsEvent(all), context()))).toEqual([]);
    expect(lines.at(-1)?.counts.duplicate).toBe(7);
    expect(rig.powertoolsReads()).toBe(reads);
    expect(await rig.effects()).toEqual({ o1: 1, o2: 1, o3: 1, o4: 1, o5: 1, o6: 1, o7: 1 });
  });

  it('reads Powertools’ table for a fresh claim during the window only: none after `until`', async () => {
    const rig = await cutoverRig();
    const lines: BatchLogLine[] = [];
    const ours = oursHandler(rig, lines);
    const context = () => lambdaContext({ clock: rig.clock, timeoutMs: 60_000 });
    const batch = (prefix: string) => sqsEvent([1, 2, 3].map((i) => sqsRecord({ body: JSON.stringify({ orderNo: `${prefix}-${i}` }) })));
    expect(failed(await ours(batch('during'), context()))).toEqual([]);
    expect(rig.powertoolsReads()).toBe(3); // control: one GetItem per fresh claim in the window
    rig.clock.advance(WINDOW_MS);
    expect(failed(await ours(batch('after'), context()))).toEqual([]);
    expect(rig.powertoolsReads()).toBe(3);
    expect(lines.at(-1)?.counts.completed).toBe(3);
  });

  it('under the transaction strategy: a message Powertools completed is our duplicate, recorded as ours for after the window', async () => {
    const rig = await cutoverRig();
    const message = sqsRecord({ body: JSON.stringify({ orderNo: 't1' }) });
    const done = await invoke(powertoolsHandler(rig), sqsEvent([message]), { timeoutMs: 60_000 });
    expect(done.kind === 'returned' && failed(done.value)).toEqual([]);
    const lines: BatchLogLine[] = [];
    const ours = oursHandler(rig, lines, 'transaction');
    const context = () => lambdaContext({ clock: rig.clock, timeoutMs: 60_000 });
    expect(failed(await ours(sqsEvent([redelivered(message)]), context()))).toEqual([]);
    expect(lines.at(-1)?.counts.duplicate).toBe(1);
    // After the window nothing is read, and the message is still a duplicate: our own record says so.
    rig.clock.advance(WINDOW_MS);
    const reads = rig.powertoolsReads();
    expect(failed(await ours(sqsEvent([redelivered(message)]), context()))).toEqual([]);
    expect(lines.at(-1)?.counts.duplicate).toBe(1);
    expect(rig.powertoolsReads()).toBe(reads);
    // A message Powertools never saw commits its write with our record, once.
    expect(failed(await ours(sqsEvent([sqsRecord({ body: JSON.stringify({ orderNo: 't2' }) })]), context()))).toEqual([]);
    expect(await rig.effects()).toEqual({ t1: 1, t2: 1 });
  });
});
