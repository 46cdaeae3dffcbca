/**
 * `deadLetter({...})`: the plug-in of `sqsIdempotency` that sends permanent
 * failures (a `PermanentError`, an error `isPermanent` names, an invalid
 * record) straight to the DLQ and acknowledges them once SQS took the copy.
 * A handler that does not import it does not bundle it.
 */
import type { SQSRecord } from 'aws-lambda';
import type { SqsClientLike } from './sqs-client.js';
import { checkOptions, hasMethods, is, type OptionRules } from '../../engine/options.js';
import type { FailedOutcome, InvalidOutcome, RecordOutcome } from '../../engine/outcomes.js';
import { errorText } from '../../stores/dynamodb/records.js';
import { deadLetterable, type IsPermanent } from './permanent.js';
import { sendToDlq, type DlqSettings } from './dlq.js';
import { fifoGroup } from './record.js';
import { settlePlugin, type SqsSettlePlugin } from './plugins.js';

/** Options of {@link deadLetter}. */
export interface DeadLetterOptions {
  /** The SQS client it sends through (`new SQSClient({})` from `@aws-sdk/client-sqs`). */
  readonly sqs: SqsClientLike;
  /** The DLQ. Default: the source queue's redrive policy target, looked up once per container. */
  readonly dlqUrl?: string;
  /** Which other errors the handler throws are permanent. `PermanentError` and invalid records always are. */
  readonly isPermanent?: IsPermanent;
  /** A queue ARN's URL. Default: `https://sqs.<region>.amazonaws.com/<account>/<name>`. */
  readonly queueUrl?: (queueArn: string) => string;
}

/** What {@link deadLetter} returns: the value of `sqsIdempotency`'s option `deadLetter`. */
export type DeadLetterPlugin = SqsSettlePlugin<'deadLetter'>;

/** The rule of an SQS client, recognised by its `send` (the class itself is not imported). */
export const sqsClientRule = { ...hasMethods('an SQSClient (an object with send)', 'send'), required: true };

const RULES: OptionRules = {
  sqs: sqsClientRule,
  dlqUrl: is.nonEmptyString,
  isPermanent: is.fn,
  queueUrl: is.fn,
};

/** The outcomes with each permanent failure the DLQ took turned into `dead-lettered`. */
async function deadLetterOutcomes(
  outcomes: readonly RecordOutcome[],
  records: ReadonlyMap<string, SQSRecord>,
  consumer: string,
  options: DeadLetterOptions & DlqSettings,
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

/**
 * The DLQ plug-in of `sqsIdempotency`: pass it as its option `deadLetter`.
 * Its step never throws: a failed send leaves the record to come back (as
 * without the plug-in) and is named in the log line (`sqsErrors`).
 * `@aws-sdk/client-sqs` is loaded only when something is sent.
 *
 * @throws TypeError when an option is unknown or of the wrong type, naming it.
 * @example
 * ```ts
 * import { SQSClient } from '@aws-sdk/client-sqs';
 * import { DynamoDBClaimStore, PermanentError, deadLetter, sqsIdempotency } from 'effectively-once';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 *
 * const store = new DynamoDBClaimStore({ client: DynamoDBDocumentClient.from(new DynamoDBClient({})), tableName: 'idempotency' });
 * const middleware = sqsIdempotency({
 *   store,
 *   key: (r) => r.messageId,
 *   deadLetter: deadLetter({ sqs: new SQSClient({}), isPermanent: (err) => err instanceof SyntaxError }),
 * });
 * console.log(middleware.before !== undefined, PermanentError.name); // true PermanentError
 * ```
 */
export function deadLetter(options: DeadLetterOptions): DeadLetterPlugin {
  checkOptions('deadLetter', options, RULES);
  const settings = { ...options };
  return settlePlugin('deadLetter', async (outcomes, { records, consumer }) => {
    const errors: string[] = [];
    let final = outcomes;
    try {
      final = await deadLetterOutcomes(outcomes, records, consumer, settings, errors);
    } catch (err) {
      errors.push(errorText(err));
    }
    // A request to SQS that failed is something to fix: the line warns.
    return { outcomes: final, notes: { fields: errors.length === 0 ? {} : { sqsErrors: errors }, warn: errors.length > 0 } };
  });
}
