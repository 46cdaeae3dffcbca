/**
 * The variants: one row each in the report, each on its own fresh tables and
 * its own client, all fed the same deliveries. Every variant is defined here
 * and only here (the reports find them by id): a variant that a library
 * change removes is one entry to delete.
 */
import type { SQSEvent } from 'aws-lambda';
import { claim, transaction } from '../src/index.js';
import { PER_RECORD_FROM_MB } from '../src/strategies/claim/requests.js';
import {
  eachRecordHandler,
  oursHandler,
  plainHandler,
  powertoolsHandler,
  type BatchHandler,
  type BatchLineHook,
  type OursStrategy,
  type SqsMiddleware,
} from './contenders.js';
import type { BusinessTableKind, CountedClient, IdempotencyTableKind, VariantTables } from './dynamo.js';
import { addPoints, addPointsUpdate, markPaid, transitionToPaid } from './effects.js';

/** What a variant is built from. */
export interface VariantEnv {
  readonly counted: CountedClient;
  readonly tables: VariantTables;
  /** Size of the warm-container caches, where on: room for every key of the run. */
  readonly cacheEntries: number;
  /** Called as each record's effect starts. */
  readonly onEffect: () => void;
  /** Gets ours' batch log line (the claim strategy's names its request pattern); none: the line is built and dropped. */
  readonly onBatchLine?: BatchLineHook;
}

export interface Variant {
  readonly id: string;
  readonly title: string;
  /** What runs, in one line (printed with the figures). */
  readonly setup: string;
  /** The Powertools variant its ratios are taken against; undefined for Powertools' own rows. */
  readonly comparedWith?: string;
  readonly idempotencyTable: IdempotencyTableKind;
  readonly business: BusinessTableKind;
  /** Whether this variant is meant to apply each event once (the baseline is not). */
  readonly idempotent: boolean;
  /** Run only when named in `--only` (another configuration of a default variant, for a comparison). */
  readonly optional?: boolean;
  build(env: VariantEnv): BatchHandler;
}

/** What every handler gets: the variant's client and the effect-start hook. */
function common(env: VariantEnv) {
  return { counted: env.counted, onEffect: env.onEffect };
}

function idempotencyTable(env: VariantEnv): string {
  const name = env.tables.idempotency;
  if (name === undefined) throw new Error('this variant needs an idempotency table');
  return name;
}

/** Ours on the transaction strategy, its points ADD as `tx.update(...)`: the transaction variants differ only in the strategy's settings and the cache. */
function oursTransaction(env: VariantEnv, strategy: OursStrategy, cacheEntries?: number): BatchHandler {
  return oursHandler({
    ...common(env),
    tableName: idempotencyTable(env),
    strategy,
    onBatchLine: env.onBatchLine,
    ...(cacheEntries === undefined ? {} : { cacheEntries }),
    effect: (e, { tx }) => {
      if (tx === undefined) throw new Error('eachRecord.inTransaction hands tx');
      tx.update(addPointsUpdate(env.tables.business, e));
    },
  });
}

/** Ours on a claim strategy (undefined: the library's default), its points ADD in the handler. */
function oursClaim(
  env: VariantEnv,
  strategy: OursStrategy | undefined,
  extra: { readonly cacheEntries?: number; readonly after?: readonly SqsMiddleware[] } = {},
): BatchHandler {
  return oursHandler({
    ...common(env),
    tableName: idempotencyTable(env),
    strategy,
    onBatchLine: env.onBatchLine,
    ...extra,
    effect: (e) => addPoints(env.counted, env.tables.business, e),
  });
}

/** A claim variant on the points table, compared with Powertools (`optional`: run only when named in `--only`). */
function claimVariant(id: string, title: string, setup: string, strategy: () => OursStrategy | undefined, optional = false): Variant {
  return {
    id,
    title,
    setup,
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    ...(optional ? { optional } : {}),
    build: (env) => oursClaim(env, strategy()),
  };
}

/** A transaction variant run only when named: the strategy's other settings, for a comparison. */
function optionalTransaction(id: string, title: string, setup: string, strategy: () => OursStrategy): Variant {
  return {
    id,
    title,
    setup,
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    optional: true,
    build: (env) => oursTransaction(env, strategy()),
  };
}

/**
 * A middleware after ours that replaces the event with a copy, as a
 * middleware that stamps or enriches the event does: the handler then sees
 * records that are not the objects ours handed on.
 */
export const copyEvent: SqsMiddleware = {
  before: (request) => {
    request.event = { ...request.event, receivedAt: Date.now() } as SQSEvent;
  },
};

/** Every variant, in print order. */
export const variants: readonly Variant[] = [
  {
    id: 'baseline',
    title: 'no idempotency',
    setup: 'the points ADD per record, nothing else: the ceiling, and it counts every duplicate again',
    comparedWith: 'powertools',
    idempotencyTable: 'none',
    business: 'points',
    idempotent: false,
    build: (env) => plainHandler({ ...common(env), effect: (e) => addPoints(env.counted, env.tables.business, e) }),
  },
  {
    id: 'powertools',
    title: 'Powertools',
    setup:
      'makeIdempotent per record + BatchProcessor/processPartialResponse (defaults), key powertools_json(body).orderNo; points ADD in the record handler',
    idempotencyTable: 'powertools',
    business: 'points',
    idempotent: true,
    build: (env) =>
      powertoolsHandler({
        ...common(env),
        tableName: idempotencyTable(env),
        effect: (e) => addPoints(env.counted, env.tables.business, e),
      }),
  },
  claimVariant(
    'ours-default',
    'ours, default',
    `sqsIdempotency with no strategy option (the README handler) + eachRecord; points ADD in the handler. Every claim returns before the handler runs; the requests are chosen per invocation from context.memoryLimitInMB (the batch log line's requests): batched below ${PER_RECORD_FROM_MB} MB and on Managed Instances, from ${PER_RECORD_FROM_MB} MB a request per claim and each record completed as its effect ends`,
    () => undefined,
  ),
  {
    id: 'ours-default-copy',
    title: 'ours, default + event copy',
    setup:
      'as ours, default, with a Middy middleware after ours that replaces the event with a copy (request.event = { ...request.event, receivedAt })',
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, undefined, { after: [copyEvent] }),
  },
  // The default spelled out: the same strategy and requests, so only run when named (a check that the option changes nothing).
  claimVariant(
    'ours-claim',
    'ours, claim()',
    'as ours, default, with strategy: claim() spelled out (the same strategy: requests chosen per invocation from context.memoryLimitInMB)',
    () => claim(),
    true,
  ),
  claimVariant(
    'ours-claim-pipelined',
    'ours, claim, pipelined',
    'as ours, default, with strategy: claim({ pipelined: true }) (opt-in): each record starts when its own claim returns, every request alone; the handler and a middleware after ours are handed no records',
    () => claim({ pipelined: true }),
  ),
  {
    id: 'ours-transaction',
    title: 'ours, transaction',
    setup: 'sqsIdempotency (strategy transaction()) + eachRecord; points ADD as tx.update(...), committed with the idempotency record',
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursTransaction(env, transaction()),
  },
  ...(['never', 'always'] as const).map((probe) =>
    optionalTransaction(
      `ours-transaction-probe-${probe}`,
      `ours, transaction, probeDuplicates '${probe}'`,
      `as ours, transaction, with transaction({ probeDuplicates: '${probe}' }) (default 'auto')`,
      () => transaction({ probeDuplicates: probe }),
    ),
  ),
  optionalTransaction(
    'ours-transaction-per-record',
    "ours, transaction, commit 'record'",
    "as ours, transaction, with transaction({ commit: 'record' }): each record its own TransactWriteItems right after its handler",
    () => transaction({ commit: 'record' }),
  ),
  {
    id: 'ours-transaction-cache',
    title: 'ours, transaction, cache',
    setup:
      'as ours, transaction, with the store cache (maxEntries: every key of the run): a key it knows COMPLETED is neither probed nor committed',
    comparedWith: 'powertools-cache',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    optional: true,
    build: (env) => oursTransaction(env, transaction(), env.cacheEntries),
  },
  {
    id: 'powertools-cache',
    title: 'Powertools, local cache',
    setup: 'as Powertools, with useLocalCache (maxLocalCacheSize: every key of the run)',
    idempotencyTable: 'powertools',
    business: 'points',
    idempotent: true,
    build: (env) =>
      powertoolsHandler({
        ...common(env),
        tableName: idempotencyTable(env),
        cacheEntries: env.cacheEntries,
        effect: (e) => addPoints(env.counted, env.tables.business, e),
      }),
  },
  {
    id: 'ours-claim-cache',
    title: 'ours, claim, cache',
    setup: 'as ours, default (strategy: claim()), with the store cache (maxEntries: every key of the run)',
    comparedWith: 'powertools-cache',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, claim(), { cacheEntries: env.cacheEntries }),
  },
  {
    id: 'powertools-order',
    title: 'Powertools, order update',
    setup: 'as Powertools; the record handler sets the order PAID (plain UpdateItem, version + 1)',
    idempotencyTable: 'powertools',
    business: 'orders',
    idempotent: true,
    build: (env) =>
      powertoolsHandler({ ...common(env), tableName: idempotencyTable(env), effect: (e) => markPaid(env.counted, env.tables.business, e) }),
  },
  {
    id: 'ours-state',
    title: 'ours, state machine',
    setup: "eachRecord + transition(PENDING -> PAID): one conditional UpdateItem, 'already' acknowledged; no idempotency table",
    comparedWith: 'powertools-order',
    idempotencyTable: 'none',
    business: 'orders',
    idempotent: true,
    build: (env) => eachRecordHandler({ ...common(env), effect: (e) => transitionToPaid(env.counted, env.tables.business, e) }),
  },
];

/** Variant ids, for usage text and validation. */
export const variantIds: readonly string[] = variants.map((v) => v.id);

/** The selected variants in print order, each with the variant it is compared with (added when not selected); optional ones only when named. */
export function selectVariants(only: readonly string[]): Variant[] {
  if (only.length === 0) return variants.filter((v) => v.optional !== true);
  const wanted = new Set(only);
  for (const v of variants) if (wanted.has(v.id) && v.comparedWith !== undefined) wanted.add(v.comparedWith);
  return variants.filter((v) => wanted.has(v.id));
}
