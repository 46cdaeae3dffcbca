/**
 * Permanent failures straight to the dead-letter queue. With backoff.ts the only module that loads
 * `@aws-sdk/client-sqs`, by a dynamic import in {@link sendToDlq} when `deadLetter` sends something: a bundle with the
 * SDK external would hoist a static import to the top and load it at every cold start.
 */
import type { GetQueueAttributesCommandOutput, SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { SqsClientLike } from './sqs-client.js';
import type { SQSRecord } from 'aws-lambda';
import type { FailedOutcome, InvalidOutcome } from '../../engine/outcomes.js';
import { chunks } from '../../engine/chunks.js';
import { systemClock, type Clock } from '../../engine/clock.js';
import { errorText } from '../../stores/dynamodb/records.js';
import { byQueue, SQS_BATCH_LIMIT } from './calls.js';
import { dlqEntry, isFifoUrl, queueUrlFor } from './dlq-message.js';

/** What the DLQ send needs (the resolved `deadLetter` options). */
export interface DlqSettings {
  readonly sqs: SqsClientLike;
  readonly dlqUrl?: string;
  readonly queueUrl?: (queueArn: string) => string;
  /** What the DLQ address cache's lifetime is measured with (tests); default the system clock. */
  readonly clock?: Clock;
}

/** A permanently failed record and its outcome. */
export interface PermanentFailure {
  readonly record: SQSRecord;
  readonly outcome: FailedOutcome | InvalidOutcome;
}

/** What the sends did: the DLQ message id of each record the DLQ took, and what went wrong. */
export interface DlqResult {
  readonly sent: Map<string, string>;
  readonly errors: string[];
}

/**
 * How long a DLQ address found through a redrive policy is reused, ms: a
 * changed redrive policy takes effect within this, without a cold start,
 * for one `GetQueueAttributes` per queue per container per 5 minutes.
 */
export const DLQ_LOOKUP_TTL_MS = 5 * 60_000;

/**
 * DLQ URLs found through redrive policies, by source queue ARN, with when
 * each lookup started. Deliberately shared by the container's invocations
 * (a cache of the queue's configuration, not per-invocation state).
 */
const redriveTargets = new Map<string, { readonly url: Promise<string>; readonly at: number }>();

function urlOf(arn: string, settings: DlqSettings): string {
  const url = queueUrlFor(arn, settings.queueUrl);
  if (url === undefined) throw new Error(`"${arn}" is not an SQS queue ARN.`);
  return url;
}

/** The SQS commands this module sends, loaded when a batch has a permanent failure. */
type SqsCommands = Pick<typeof import('@aws-sdk/client-sqs'), 'GetQueueAttributesCommand' | 'SendMessageBatchCommand'>;

async function discover(queueArn: string, settings: DlqSettings, { GetQueueAttributesCommand }: SqsCommands): Promise<string> {
  const command = new GetQueueAttributesCommand({ QueueUrl: urlOf(queueArn, settings), AttributeNames: ['RedrivePolicy'] });
  const policy = ((await settings.sqs.send(command)) as GetQueueAttributesCommandOutput).Attributes?.['RedrivePolicy'];
  const target: unknown = policy === undefined ? undefined : (JSON.parse(policy) as { deadLetterTargetArn?: unknown }).deadLetterTargetArn;
  if (typeof target !== 'string') {
    throw new Error(`queue ${queueArn} has no redrive policy with a deadLetterTargetArn: give it a DLQ or pass deadLetter({ dlqUrl }).`);
  }
  return urlOf(target, settings);
}

/**
 * The DLQ of a source queue: the option, else its redrive policy's target
 * (cached for {@link DLQ_LOOKUP_TTL_MS}; a failed lookup is retried next batch).
 */
function dlqUrlOf(queueArn: string, settings: DlqSettings, sdk: SqsCommands): Promise<string> {
  if (settings.dlqUrl !== undefined) return Promise.resolve(settings.dlqUrl);
  const now = (settings.clock ?? systemClock).now();
  const cached = redriveTargets.get(queueArn);
  if (cached !== undefined && now - cached.at < DLQ_LOOKUP_TTL_MS) return cached.url;
  const entry = { url: discover(queueArn, settings, sdk), at: now };
  redriveTargets.set(queueArn, entry);
  entry.url.catch(() => {
    if (redriveTargets.get(queueArn) === entry) redriveTargets.delete(queueArn);
  });
  return entry.url;
}

async function sendChunk(
  url: string,
  failures: readonly PermanentFailure[],
  consumer: string,
  settings: DlqSettings,
  result: DlqResult,
  { SendMessageBatchCommand }: SqsCommands,
): Promise<void> {
  const fifo = isFifoUrl(url);
  const entries = failures.map(({ record, outcome }, i) =>
    dlqEntry(String(i), record, { consumer, key: outcome.key, error: outcome.error }, fifo),
  );
  try {
    // The SDK's SQSClient answers this command with its output type; the option is typed by shape only.
    const out = (await settings.sqs.send(
      new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }),
    )) as SendMessageBatchCommandOutput;
    for (const ok of out.Successful ?? []) {
      const failure = failures[Number(ok.Id)];
      if (failure !== undefined && ok.MessageId !== undefined) result.sent.set(failure.record.messageId, ok.MessageId);
    }
    for (const failed of out.Failed ?? []) {
      const id = failures[Number(failed.Id)]?.record.messageId ?? failed.Id;
      result.errors.push(`SendMessageBatch to ${url} refused ${id}: ${failed.Code ?? ''} ${failed.Message ?? ''}`.trim());
    }
  } catch (err) {
    result.errors.push(`SendMessageBatch to ${url} failed: ${errorText(err)}`);
  }
}

/**
 * Sends each permanent failure to its queue's DLQ, 10 per request. A record
 * is in `sent` only when SQS confirmed its entry; every other one comes back
 * as it would have without a DLQ, so nothing is acknowledged unsent.
 */
export async function sendToDlq(failures: readonly PermanentFailure[], consumer: string, settings: DlqSettings): Promise<DlqResult> {
  // Before any request: a missing SDK fails the whole step, nothing half sent.
  const sdk: SqsCommands = await import('@aws-sdk/client-sqs');
  const result: DlqResult = { sent: new Map(), errors: [] };
  const queues = [...byQueue(failures, (f) => f.record)];
  await Promise.all(
    queues.map(async ([arn, group]) => {
      const url = await dlqUrlOf(arn, settings, sdk).catch((err: unknown) => {
        result.errors.push(`No DLQ for ${arn}: ${errorText(err)}`);
        return undefined;
      });
      if (url === undefined) return;
      await Promise.all(chunks(group, SQS_BATCH_LIMIT).map((chunk) => sendChunk(url, chunk, consumer, settings, result, sdk)));
    }),
  );
  return result;
}
