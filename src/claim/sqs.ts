/**
 * `sqsIdempotency` of the claim-only entry (`effectively-once/claim`): the
 * same middleware, options and behaviour as the main entry's for the claim
 * strategy, built on the same lifecycle with none of its optional parts
 * (transaction strategy, metrics, heartbeat, pipelined claims, DLQ and
 * backoff). Options only those parts serve are a `TypeError` naming them, so
 * a handler never runs without what it asked for.
 */
import type { MiddlewareObj } from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { LeasePolicy } from '../engine/lease.js';
import { is, isPlainObject, resolveOptions, type OptionRules, type RulesOf } from '../engine/options.js';
import { batchIdempotency } from '../batch/middleware.js';
import { defaultClaim } from '../strategies/claim/steps.js';
import { isStrategy } from '../strategies/types.js';
import { heartbeatOn } from '../engine/heartbeat.js';
import type { ClaimStrategy } from '../strategies/claim/claim.js';
import { claimCommonRules, recordRules } from '../batch/options.js';
import type { SqsIdempotencyOptions as MainSqsOptions } from '../sources/sqs/middleware.js';
import { SQS_MIDDLEWARE, sqsDefaults } from '../sources/sqs/defaults.js';
import { sqsSource } from '../sources/sqs/adapter.js';

/** Options the claim-only entry refuses whatever their value: the main entry's parts it leaves out. */
const REFUSED = ['sqs', 'queueUrl', 'permanentFailures', 'backoff'] as const;
type Refused = (typeof REFUSED)[number];

/**
 * Options of the claim-only {@link sqsIdempotency}: the main entry's, less
 * what needs a part this entry leaves out (a `strategy` other than `claim()`:
 * `transaction()`, `claim({ heartbeat })`, `claim({ pipelined: true })`;
 * `metrics`; `sqs`, `queueUrl`, `permanentFailures`, `backoff`).
 */
export interface SqsIdempotencyOptions extends Omit<MainSqsOptions, Refused | 'strategy' | 'metrics' | 'lease'> {
  /** Lease bounds (ms), as in the main entry. Default: margin 5 s, floor 10 s, cap 15 min. */
  readonly lease?: Partial<LeasePolicy>;
  /**
   * Only `claim()` with its defaults (imported from 'effectively-once'), or
   * absent (the same): every record is claimed before the handler runs,
   * with no heartbeat.
   */
  readonly strategy?: ClaimStrategy;
  /** Only `false`: this entry writes no metrics (the main entry's default is EMF on stdout). */
  readonly metrics?: false;
}

const OWNER = SQS_MIDDLEWARE;

/** The options this entry cannot serve, with the value that would need the left-out part. */
function unservable(options: Record<string, unknown>): string | undefined {
  const needs: Record<string, boolean> = {
    strategy: needsMainStrategy(options['strategy']),
    ...Object.fromEntries(REFUSED.map((name) => [name, options[name] !== undefined])),
    metrics: options['metrics'] !== undefined && options['metrics'] !== false,
  };
  return Object.keys(needs).find((name) => needs[name]);
}

/**
 * A strategy this entry cannot serve: a transaction, or a claim that is
 * pipelined or has a heartbeat. `claim()` with its defaults is served.
 */
function needsMainStrategy(strategy: unknown): boolean {
  // Not a strategy object: a wrong value the rule names.
  if (!isStrategy(strategy)) return false;
  const { kind, pipelined, heartbeat } = strategy as unknown as {
    kind: string;
    pipelined?: boolean;
    heartbeat?: boolean | { everyMs: number };
  };
  if (kind !== 'claim') return kind === 'transaction';
  return pipelined === true || heartbeatOn(heartbeat);
}

const rules = {
  ...claimCommonRules,
  ...recordRules,
  // A default claim() object passed the check above.
  strategy: { expected: 'what claim() returns', check: (v: unknown) => isStrategy(v) && (v as { kind?: unknown }).kind === 'claim' },
  metrics: { expected: 'false', check: (v: unknown) => v === false },
  safetyMarginMs: is.timerMs,
} satisfies RulesOf<SqsIdempotencyOptions>;

// Known, so that one set to `undefined` counts as not given, as in the main entry; any other value was refused above.
const refusedRules: OptionRules = Object.fromEntries(REFUSED.map((name) => [name, { expected: 'absent', check: () => false }]));

const { lease, logger, storeResult, autoSafetyMargin, payload } = sqsDefaults;
const defaults = { lease, logger, storeResult, autoSafetyMargin, payload, metrics: false as const };

/**
 * Makes an SQS batch handler idempotent per business key with the claim
 * strategy (a DynamoDB claim record around each record's effect), and
 * returns `{ batchItemFailures }` for exactly the records that must be
 * retried; the same as `sqsIdempotency` from `effectively-once` for every
 * option it takes, in a smaller bundle. Pair it with {@link eachRecord}.
 *
 * @throws TypeError when an option is unknown or of the wrong type, or needs
 * the main entry (`strategy: transaction()`, `commit`, `metrics`, ...), at build time.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
 * import { DynamoDBClaimStore, eachRecord, jsonBody, sqsIdempotency } from 'effectively-once/claim';
 *
 * const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
 * const store = new DynamoDBClaimStore({ client, tableName: 'idempotency' });
 *
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({ store, consumer: 'payments', key: (r) => jsonBody<{ orderNo: string }>(r).orderNo }))
 *   .handler(eachRecord(async (record) => {
 *     console.log('charging', record.body);
 *   }));
 * ```
 */
export function sqsIdempotency(options: SqsIdempotencyOptions): MiddlewareObj<SQSEvent, SQSBatchResponse> {
  const name = isPlainObject(options) ? unservable(options) : undefined;
  if (name !== undefined) {
    throw new TypeError(
      `${OWNER}: option "${name}" needs a part 'effectively-once/claim' leaves out (it serves the claim strategy only); import ${OWNER} from 'effectively-once' to use it.`,
    );
  }
  const resolved = resolveOptions(OWNER, options, { ...rules, ...refusedRules }, defaults);
  // The claim strategy's batch claims alone, and no metrics: what this entry serves is all it bundles.
  return batchIdempotency(sqsSource, {
    ...resolved,
    owner: OWNER,
    steps: defaultClaim.batch({ ...resolved, owner: OWNER }),
  });
}
