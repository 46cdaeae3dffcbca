/**
 * `backoff({...})`: the plug-in of `sqsIdempotency` that gives the records
 * that come back a visibility timeout from their receive count, one
 * `ChangeMessageVisibilityBatch` per 10 records. `@aws-sdk/client-sqs` is
 * imported only when records come back (see dlq.ts), and a handler that
 * does not import the factory does not bundle any of this.
 */
import type { ChangeMessageVisibilityBatchCommandOutput } from '@aws-sdk/client-sqs';
import type { SqsClientLike } from './sqs-client.js';
import type { SQSRecord } from 'aws-lambda';
import { backoffSeconds, MAX_VISIBILITY_SECONDS, type BackoffPolicy } from './backoff-schedule.js';
import { chunks } from '../../engine/chunks.js';
import { checkOptions, is, type OptionRule, type OptionRules } from '../../engine/options.js';
import { acknowledged } from '../../engine/outcomes.js';
import { sqsClientRule } from './dead-letter.js';
import { settlePlugin, type SqsSettlePlugin } from './plugins.js';
import { errorText } from '../../stores/dynamodb/records.js';
import { byQueue, SQS_BATCH_LIMIT } from './calls.js';
import { queueUrlFor } from './dlq-message.js';
import { attemptOf } from './record.js';

/** What the backoff needs (the resolved options of {@link backoff}). */
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

/** Options of {@link backoff}. */
export interface BackoffOptions {
  /** The SQS client it sends through (`new SQSClient({})` from `@aws-sdk/client-sqs`). */
  readonly sqs: SqsClientLike;
  /** Ceiling after the first receive, doubling per receive (seconds). Default 2. */
  readonly baseSeconds?: number;
  /** Largest ceiling (seconds, at most 43200). Default 900. */
  readonly maxSeconds?: number;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
  /** A queue ARN's URL. Default: `https://sqs.<region>.amazonaws.com/<account>/<name>`. */
  readonly queueUrl?: (queueArn: string) => string;
}

/** What {@link backoff} returns: the value of `sqsIdempotency`'s option `backoff`. */
export type BackoffPlugin = SqsSettlePlugin<'backoff'>;

/** Defaults of {@link backoff}. */
export const backoffDefaults = { baseSeconds: 2, maxSeconds: 900 } as const;

const seconds: OptionRule = {
  expected: `whole seconds, 1 to ${MAX_VISIBILITY_SECONDS}`,
  check: (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_VISIBILITY_SECONDS,
};

const RULES: OptionRules = { sqs: sqsClientRule, baseSeconds: seconds, maxSeconds: seconds, random: is.fn, queueUrl: is.fn };

/**
 * The backoff plug-in of `sqsIdempotency`: pass it as its option `backoff`.
 * Each record that comes back gets a visibility timeout drawn from an
 * exponential backoff on its receive count, with full jitter. Its step never
 * throws: a failed change leaves the queue's own visibility timeout (as
 * without the plug-in) and is named in the log line (`sqsErrors`).
 *
 * @throws TypeError when an option is unknown or of the wrong type, or `baseSeconds` > `maxSeconds`.
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { backoff } from 'effectively-once';
 *
 * const plugin = backoff({ sqs: new SQSClient({}), baseSeconds: 5, maxSeconds: 600 });
 * console.log(plugin.plugin); // backoff
 * ```
 */
export function backoff(options: BackoffOptions): BackoffPlugin {
  checkOptions('backoff', options, RULES);
  // Field by field: an option given as undefined (JavaScript callers) keeps its default.
  const settings: BackoffSettings = {
    ...options,
    baseSeconds: options.baseSeconds ?? backoffDefaults.baseSeconds,
    maxSeconds: options.maxSeconds ?? backoffDefaults.maxSeconds,
    random: options.random ?? Math.random,
  };
  if (settings.baseSeconds > settings.maxSeconds) {
    throw new TypeError(`backoff: option "baseSeconds" (${settings.baseSeconds}) must be at most "maxSeconds" (${settings.maxSeconds}).`);
  }
  return settlePlugin('backoff', async (outcomes, { records }) => {
    const returning = outcomes.flatMap((o) => (acknowledged(o) ? [] : [records.get(o.messageId)])).filter((r) => r !== undefined);
    const result: BackoffResult =
      returning.length === 0
        ? { backedOff: 0, errors: [] }
        : await backOff(returning, settings).catch((err: unknown) => ({ backedOff: 0, errors: [errorText(err)] }));
    const { backedOff, errors } = result;
    return { outcomes, notes: { fields: { backedOff, ...(errors.length === 0 ? {} : { sqsErrors: errors }) }, warn: errors.length > 0 } };
  });
}
