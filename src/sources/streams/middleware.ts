/**
 * The one middleware factory of the stream sources (Kinesis, DynamoDB
 * Streams, Kafka): their options are the same apart from the record type and
 * the default key and payload, so each source's public function is this
 * factory given its adapter and its defaults.
 */
import type { MiddlewareObj } from '@middy/core';
import { batchIdempotency } from '../../batch/middleware.js';
import { defaultClaim } from '../../strategies/claim/steps.js';
import type { BusinessKey } from '../../engine/keys.js';
import {
  batchDefaults,
  batchRules,
  commonRules,
  recordRules,
  resolveMiddlewareOptions,
  type CommonIdempotencyOptions,
} from '../../batch/options.js';
import { is, type RulesOf } from '../../engine/options.js';
import type { BatchSource } from '../../engine/source.js';

/** What every stream middleware's options hold, for records of `TRecord` (each source's options interface has this shape). */
export interface StreamOptions<TRecord> extends CommonIdempotencyOptions {
  readonly key?: (record: TRecord) => BusinessKey | undefined | null;
  readonly payload?: ((record: TRecord) => unknown) | false;
  /** Records are not started when less than this remains (ms). Default: 20 % of the time left, at most 5000. */
  readonly safetyMarginMs?: number;
}

/** A stream source's default key and payload. */
export type StreamRecordDefaults<TRecord> = Required<Pick<StreamOptions<TRecord>, 'key' | 'payload'>>;

/** The defaults of a stream middleware, in one object: the batch defaults and the source's key and payload. */
export function streamDefaults<TRecord>(record: StreamRecordDefaults<TRecord>) {
  return { ...batchDefaults, ...record };
}

// The key is optional on a stream (every source has a default), required on SQS.
const streamRules = {
  ...commonRules,
  ...recordRules,
  ...batchRules,
  key: is.fn,
} satisfies RulesOf<StreamOptions<unknown>>;

/**
 * A stream source's middleware, named `owner` (`kinesisIdempotency`): its
 * options checked (a `TypeError` naming the option) and laid over its defaults. `TOptions` is the source's public
 * options interface; an option it declares beyond {@link StreamOptions} has
 * no rule here, so it does not type-check (rather than fail as unknown at
 * build time).
 */
export function streamIdempotency<TEvent extends object, TRecord, TResponse, TOptions extends StreamOptions<TRecord>>(
  owner: string,
  source: BatchSource<TEvent, TRecord, TResponse>,
  options: TOptions & Record<Exclude<keyof TOptions, keyof StreamOptions<TRecord>>, never>,
  defaults: ReturnType<typeof streamDefaults<TRecord>>,
): MiddlewareObj<TEvent, TResponse> {
  const checked: StreamOptions<TRecord> = options;
  // Resolved once, here: the lifecycle reads this one settings object, and the strategy gets only what its steps use.
  const settings = resolveMiddlewareOptions(owner, checked, streamRules, defaults);
  const { store, storeResult, lease } = settings;
  return batchIdempotency(source, {
    ...settings,
    owner,
    steps: (settings.strategy ?? defaultClaim).batch({ store, storeResult, lease, owner }),
  });
}
