/**
 * The SQS-only step after every record's outcome is final and before the
 * response: permanent failures to the DLQ (`permanentFailures`), then a
 * backoff for the records that come back (`backoff`). The SQS client and its
 * commands are loaded on first use, by dlq.ts and backoff.ts only.
 */
import type { SqsClientLike } from './sqs-client.js';
import type { SQSRecord } from 'aws-lambda';
import { MAX_VISIBILITY_SECONDS } from './backoff-schedule.js';
import { isPlainObject, type OptionRule } from '../../engine/options.js';
import { acknowledged, type FailedOutcome, type InvalidOutcome, type RecordOutcome } from '../../engine/outcomes.js';
import { deadLetterable, type IsPermanent } from './permanent.js';
import type { AfterSettle, AfterSettleResult } from '../../batch/middleware.js';
import { errorText } from '../../stores/dynamodb/records.js';
import { fifoGroup } from './record.js';
// Static: a dynamic import of our own module makes a bundler wrap it and everything it imports in lazy
// initialisers (1.3 kB in every main-entry bundle); the SQS client they send with is what loads lazily.
import { sendToDlq, type DlqSettings } from './dlq.js';
import { backOff, type BackoffSettings } from './backoff.js';

/** Option `permanentFailures` of `sqsIdempotency` (the client is its option `sqs`). */
export interface PermanentFailureOptions {
  /** The DLQ. Default: the source queue's redrive policy target, looked up once per container. */
  readonly dlqUrl?: string;
  /** Which other errors the handler throws are permanent. `PermanentError` and invalid records always are. */
  readonly isPermanent?: IsPermanent;
}

/** Option `backoff` of `sqsIdempotency` (the client is its option `sqs`). */
export interface BackoffOptions {
  /** Ceiling after the first receive, doubling per receive (seconds). Default 2. */
  readonly baseSeconds?: number;
  /** Largest ceiling (seconds, at most 43200). Default 900. */
  readonly maxSeconds?: number;
  /** A number in [0, 1) for the jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** What the after-settle step reads of the `sqsIdempotency` options. */
export interface SqsSettleOptions {
  readonly sqs?: SqsClientLike;
  readonly queueUrl?: (queueArn: string) => string;
  readonly permanentFailures?: PermanentFailureOptions;
  readonly backoff?: BackoffOptions;
}

/** Backoff defaults. */
const backoffDefaults = { baseSeconds: 2, maxSeconds: 900 } as const;

/** An SQS client, recognised by its `send` (the class itself is not imported here). */
export const hasSend = (v: unknown): boolean => typeof v === 'object' && v !== null && typeof (v as { send?: unknown }).send === 'function';
const optionalFn = (v: unknown): boolean => v === undefined || typeof v === 'function';
const seconds = (v: unknown): boolean =>
  v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_VISIBILITY_SECONDS);

function onlyKeys(v: Record<string, unknown>, known: readonly string[]): boolean {
  return Object.keys(v).every((k) => known.includes(k));
}

/** Rule for `permanentFailures`. */
export const permanentFailuresRule = {
  expected: 'an object { dlqUrl?: a non-empty string, isPermanent?: a function } and nothing else',
  check: (v: unknown) =>
    isPlainObject(v) &&
    onlyKeys(v, ['dlqUrl', 'isPermanent']) &&
    (v['dlqUrl'] === undefined || (typeof v['dlqUrl'] === 'string' && v['dlqUrl'].length > 0)) &&
    optionalFn(v['isPermanent']),
} satisfies OptionRule;

/** Rule for `backoff`. */
export const backoffRule = {
  expected: `an object { baseSeconds?, maxSeconds?: whole seconds 1..${MAX_VISIBILITY_SECONDS} (base <= max), random?: a function } and nothing else`,
  check: (v: unknown) => {
    if (!isPlainObject(v) || !onlyKeys(v, ['baseSeconds', 'maxSeconds', 'random'])) return false;
    if (!seconds(v['baseSeconds']) || !seconds(v['maxSeconds']) || !optionalFn(v['random'])) return false;
    const base = (v['baseSeconds'] as number | undefined) ?? backoffDefaults.baseSeconds;
    return base <= ((v['maxSeconds'] as number | undefined) ?? backoffDefaults.maxSeconds);
  },
} satisfies OptionRule;

async function deadLetter(
  outcomes: readonly RecordOutcome[],
  records: ReadonlyMap<string, SQSRecord>,
  consumer: string,
  options: PermanentFailureOptions & DlqSettings,
  errors: string[],
): Promise<readonly RecordOutcome[]> {
  const laneOf = (o: RecordOutcome) => {
    const record = records.get(o.messageId);
    return record === undefined ? undefined : fifoGroup(record);
  };
  // FIFO: only the first record of a group that comes back may leave it, so nothing behind it is acknowledged first.
  const eligible = deadLetterable(outcomes, laneOf, options.isPermanent);
  const failures = outcomes.flatMap((outcome, i) => {
    const record = records.get(outcome.messageId);
    // deadLetterable asked isPermanentFailure once per record (the user's predicate runs once): only failed or invalid are eligible.
    return record !== undefined && eligible[i] === true ? [{ record, outcome: outcome as FailedOutcome | InvalidOutcome }] : [];
  });
  if (failures.length === 0) return outcomes;
  const { sent, errors: sendErrors } = await sendToDlq(failures, consumer, options);
  errors.push(...sendErrors);
  return outcomes.map((o): RecordOutcome => {
    const dlqMessageId = sent.get(o.messageId);
    if (dlqMessageId === undefined || (o.kind !== 'failed' && o.kind !== 'invalid')) return o;
    return {
      messageId: o.messageId,
      ...(o.key === undefined ? {} : { key: o.key }),
      kind: 'dead-lettered',
      was: o.kind,
      error: o.error,
      dlqMessageId,
    };
  });
}

async function backOffReturning(
  outcomes: readonly RecordOutcome[],
  records: ReadonlyMap<string, SQSRecord>,
  options: BackoffOptions & Pick<BackoffSettings, 'sqs' | 'queueUrl'>,
  errors: string[],
): Promise<number> {
  const returning = outcomes.flatMap((o) => (acknowledged(o) ? [] : [records.get(o.messageId)])).filter((r) => r !== undefined);
  if (returning.length === 0) return 0;
  // Field by field: an option given as undefined (JavaScript callers) keeps its default.
  const settings = {
    ...options,
    baseSeconds: options.baseSeconds ?? backoffDefaults.baseSeconds,
    maxSeconds: options.maxSeconds ?? backoffDefaults.maxSeconds,
    random: options.random ?? Math.random,
  };
  const result = await backOff(returning, settings);
  errors.push(...result.errors);
  return result.backedOff;
}

/**
 * The after-settle step for the options given, or `undefined` when neither
 * `permanentFailures` nor `backoff` is. It never throws: a failure leaves
 * the outcomes as they were (the records come back, as without the options)
 * and is named in the log line. The option checks require `sqs` with either.
 */
export function sqsAfterSettle(owner: string, options: SqsSettleOptions): AfterSettle<SQSRecord> | undefined {
  const { sqs, queueUrl } = options;
  const given = (['permanentFailures', 'backoff'] as const).filter((option) => options[option] !== undefined);
  if (given[0] !== undefined && sqs === undefined) {
    throw new TypeError(`${owner}: option "${given[0]}" needs the option "sqs" (the SQSClient it sends through).`);
  }
  if (sqs === undefined || given.length === 0) return undefined;
  // The client and the URL rule are given once, for both.
  const client = { sqs, ...(queueUrl === undefined ? {} : { queueUrl }) };
  const permanentFailures = options.permanentFailures === undefined ? undefined : { ...options.permanentFailures, ...client };
  const backoff = options.backoff === undefined ? undefined : { ...options.backoff, ...client };
  return async (outcomes, { records, consumer }): Promise<AfterSettleResult> => {
    const errors: string[] = [];
    let final = outcomes;
    let backedOff = 0;
    try {
      if (permanentFailures !== undefined) final = await deadLetter(outcomes, records, consumer, permanentFailures, errors);
      if (backoff !== undefined) backedOff = await backOffReturning(final, records, backoff, errors);
    } catch (err) {
      errors.push(errorText(err));
    }
    const fields = { ...(backoff === undefined ? {} : { backedOff }), ...(errors.length === 0 ? {} : { sqsErrors: errors }) };
    // A request to SQS that failed is something to fix: the line warns.
    return { outcomes: final, notes: { fields, warn: errors.length > 0 } };
  };
}
