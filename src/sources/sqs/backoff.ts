/**
 * Per-message backoff (SQS only): the records that come back get a
 * visibility timeout from their receive count, one
 * `ChangeMessageVisibilityBatch` per 10 records. `@aws-sdk/client-sqs` is
 * imported only when records come back under `backoff` (see dlq.ts), so a
 * user without it needs no SQS client.
 */
import type { ChangeMessageVisibilityBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { SqsClientLike } from './sqs-client.js';
import type { SQSRecord } from 'aws-lambda';
import { backoffSeconds, type BackoffPolicy } from './backoff-schedule.js';
import { chunks } from '../../engine/chunks.js';
import { errorText } from '../../stores/dynamodb/records.js';
import { byQueue, SQS_BATCH_LIMIT } from './calls.js';
import { queueUrlFor } from './dlq-message.js';
import { attemptOf } from './record.js';

/** What the backoff needs (the resolved `backoff` option). */
export interface BackoffSettings extends BackoffPolicy {
  readonly sqs: SqsClientLike;
  readonly random: () => number;
  readonly queueUrl?: (queueArn: string) => string;
}

/** How many records got their new visibility timeout, and what went wrong. */
export interface BackoffResult {
  backedOff: number;
  readonly errors: string[];
}

/** The SQS command this module sends, loaded when records come back (see dlq.ts: why not a static import). */
type SqsCommands = Pick<typeof import('@aws-sdk/client-sqs'), 'ChangeMessageVisibilityBatchCommand'>;

async function changeChunk(
  url: string,
  records: readonly SQSRecord[],
  settings: BackoffSettings,
  result: BackoffResult,
  { ChangeMessageVisibilityBatchCommand }: SqsCommands,
): Promise<void> {
  const entries = records.map((r, i) => ({
    Id: String(i),
    ReceiptHandle: r.receiptHandle,
    VisibilityTimeout: backoffSeconds(attemptOf(r), settings, settings.random),
  }));
  try {
    // The SDK's SQSClient answers this command with its output type; the option is typed by shape only.
    const out = (await settings.sqs.send(
      new ChangeMessageVisibilityBatchCommand({ QueueUrl: url, Entries: entries }),
    )) as ChangeMessageVisibilityBatchCommandOutput;
    result.backedOff += out.Successful?.length ?? 0;
    for (const failed of out.Failed ?? []) {
      const id = records[Number(failed.Id)]?.messageId ?? failed.Id;
      result.errors.push(`ChangeMessageVisibilityBatch on ${url} refused ${id}: ${failed.Code ?? ''} ${failed.Message ?? ''}`.trim());
    }
  } catch (err) {
    result.errors.push(`ChangeMessageVisibilityBatch on ${url} failed: ${errorText(err)}`);
  }
}

/**
 * Sets each record's visibility timeout from its backoff. Never throws: a
 * record whose change failed still comes back, after the queue's own
 * visibility timeout, which is what happens without backoff.
 */
export async function backOff(records: readonly SQSRecord[], settings: BackoffSettings): Promise<BackoffResult> {
  // Before any request: a missing SDK fails the whole step, nothing half sent.
  const sdk: SqsCommands = await import('@aws-sdk/client-sqs');
  const result: BackoffResult = { backedOff: 0, errors: [] };
  await Promise.all(
    [...byQueue(records, (r) => r)].map(async ([arn, group]) => {
      const url = queueUrlFor(arn, settings.queueUrl);
      if (url === undefined) {
        result.errors.push(`No backoff: "${arn}" is not an SQS queue ARN.`);
        return;
      }
      await Promise.all(chunks(group, SQS_BATCH_LIMIT).map((chunk) => changeChunk(url, chunk, settings, result, sdk)));
    }),
  );
  return result;
}
