/**
 * `claim()`: the claim strategy as the value of a middleware's `strategy`
 * option. A claim record guards each handler run; the two settings only a
 * claim has (pipelined claims, a lease heartbeat) live here, so a
 * transaction cannot be given them, and the pair that cannot combine
 * (pipelined claims with a heartbeat) is refused where it is written: by the
 * types, and for JavaScript callers by a `TypeError` when `claim()` runs.
 */
import { heartbeatOn, isHeartbeat } from '../../engine/heartbeat.js';
import type { HeartbeatSetting } from '../../engine/lease.js';
import { checkOptions, is } from '../../engine/options.js';
import { isRenewableStore } from '../../engine/store.js';
import { strategyObject, type EventStrategy, type StrategySteps, type StrategyUse } from '../types.js';
import { claimBatchStrategy } from './steps.js';
import { startHeartbeat } from './heartbeat-batch.js';
import { pipelinedSteps } from './pipelined.js';

/** Options of {@link claim}. */
export interface ClaimOptions {
  /**
   * `sqsIdempotency` with `eachRecord` only: start each record as soon as
   * its own claim returns, instead of claiming every record before the
   * handler runs, and send every claim and completion as a request of its
   * own: each record is one chain of three round trips, as in Powertools.
   * The price: the handler, and every middleware after `sqsIdempotency`, is
   * handed an event with no records (none is known to be claimed yet), so
   * the handler must be wrapped in `eachRecord` and a middleware after ours
   * has no records to parse, filter or copy. FIFO batches are claimed as a
   * batch. Not with a heartbeat. Default false: every claim returns before
   * the handler runs, and the requests are chosen per invocation.
   */
  readonly pipelined?: boolean;
  /**
   * Renew the claim while the handler runs (the store needs `renew`): `true`
   * every third of the lease, `{ everyMs }` a period of your own. The
   * handler's `signal` aborts when a renewal finds the claim lost. Default false.
   */
  readonly heartbeat?: HeartbeatSetting;
}

/**
 * The claim strategy every middleware takes: what {@link claim} returns
 * without `pipelined: true`. Its steps (`check`, `batch`) are the
 * middleware's to call.
 */
export interface ClaimStrategy extends StrategySteps {
  readonly kind: 'claim';
  readonly pipelined: false;
  readonly heartbeat: HeartbeatSetting;
}

/** The claim strategy with pipelined claims (`claim({ pipelined: true })`): `sqsIdempotency` only, never with a heartbeat. */
export interface PipelinedClaimStrategy extends StrategySteps {
  readonly kind: 'claim';
  readonly pipelined: true;
  readonly heartbeat: false;
}

const OWNER = 'claim()';

/** A claim's settings, as its steps read them. */
interface ClaimObject {
  readonly heartbeat: HeartbeatSetting;
}

/** The steps of `claim()` (batch claims), with the lease heartbeat's code: it comes with `claim()`, never with the default claim strategy. */
const heartbeatSteps: StrategySteps = {
  /** A heartbeat renews claims, so the store needs `renew`. */
  check(this: ClaimObject, { owner, store }: StrategyUse): void {
    if (heartbeatOn(this.heartbeat) && !isRenewableStore(store)) {
      throw new TypeError(`${owner}: option "strategy" has heartbeat, but the store has no renew method.`);
    }
  },
  batch(this: ClaimObject, settings) {
    return claimBatchStrategy({ ...settings, heartbeat: this.heartbeat, startHeartbeat });
  },
  /** The claim strategy on one event: claimed before the handler, settled after it (renewed while it runs with a heartbeat). */
  event(this: ClaimObject): EventStrategy {
    return heartbeatOn(this.heartbeat) ? { name: 'claim', heartbeat: this.heartbeat } : { name: 'claim' };
  },
};

const claimRules = {
  pipelined: is.boolean,
  heartbeat: { expected: 'a boolean or { everyMs: a positive number of ms }', check: isHeartbeat },
};

/**
 * The claim strategy, for a middleware's `strategy` option: a DynamoDB
 * claim record (IN_PROGRESS with a lease) before the handler runs, marked
 * COMPLETED after it. No `strategy` at all is `claim()`.
 *
 * Every record's claim returns before the handler runs: the handler and the
 * middlewares after ours see the event holding the records claimed for this
 * invocation, at every memory size and on every batch, and may copy it or
 * filter, reorder or rewrite its records. How the claims and completions are
 * sent is chosen per invocation from its `context.memoryLimitInMB`
 * (the batch log line's `requests`): below 512 MB, and on Lambda Managed
 * Instances (`AWS_LAMBDA_MAX_CONCURRENCY` set), a batch's claims in one
 * request and its completions together (little CPU); from 512 MB up, a
 * request per claim and each record completed as its effect ends (shorter
 * batches where CPU is plentiful, though still waiting once for the slowest
 * claim, so not faster than Powertools there).
 *
 * @throws TypeError naming the option when one is unknown or of the wrong
 * type, or when `pipelined` and `heartbeat` are both on.
 * @example
 * ```ts
 * import middy from '@middy/core';
 * import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
 * import { claim, eachRecord, jsonBody, sqsIdempotency, type IdempotencyStore } from 'effectively-once';
 *
 * declare const store: IdempotencyStore; // a DynamoDBClaimStore (it can renew claims)
 * export const handler = middy<SQSEvent, SQSBatchResponse>()
 *   .use(sqsIdempotency({
 *     store,
 *     consumer: 'reports',
 *     key: (r) => jsonBody<{ reportId: string }>(r).reportId,
 *     strategy: claim({ heartbeat: { everyMs: 10_000 } }),
 *   }))
 *   .handler(eachRecord(async (_record, { signal }) => {
 *     if (signal.aborted) return; // the claim was lost: another invocation owns it now
 *   }));
 * ```
 */
export function claim(options?: ClaimOptions & { readonly pipelined?: false }): ClaimStrategy;
export function claim(options: ClaimOptions & { readonly heartbeat?: false }): ClaimStrategy | PipelinedClaimStrategy;
export function claim(options: ClaimOptions = {}): ClaimStrategy | PipelinedClaimStrategy {
  checkOptions(OWNER, options, claimRules);
  const pipelined = options.pipelined ?? false;
  const heartbeat = options.heartbeat ?? false;
  if (!pipelined) return strategyObject(heartbeatSteps, { kind: 'claim', pipelined, heartbeat });
  // A pipelined record may start before its claim's token, which every renewal needs, is known.
  if (heartbeatOn(heartbeat)) throw new TypeError(`${OWNER}: option "pipelined" may be true only without a heartbeat (choose one).`);
  return strategyObject(pipelinedSteps, { kind: 'claim', pipelined, heartbeat: false });
}
