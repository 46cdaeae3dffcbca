/**
 * The variants: one row each in the report, each on its own fresh tables and
 * its own client, all fed the same deliveries.
 */
import { eachRecordHandler, oursHandler, plainHandler, powertoolsHandler, type BatchHandler, type OursOptions } from './contenders.js';
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

/** Ours on the transaction strategy, its points ADD as `tx.update(...)`: the transaction variants differ only in `settings`. */
function oursTransaction(env: VariantEnv, settings: Pick<OursOptions, 'probeDuplicates' | 'commit' | 'cacheEntries'> = {}): BatchHandler {
  return oursHandler({
    ...common(env),
    tableName: idempotencyTable(env),
    strategy: 'transaction',
    ...settings,
    effect: (e, { tx }) => {
      tx.update(addPointsUpdate(env.tables.business, e));
    },
  });
}

/** Ours on a claim strategy, its points ADD in the handler: the claim variants differ only in `settings`. */
function oursClaim(env: VariantEnv, settings: Pick<OursOptions, 'strategy' | 'claims' | 'cacheEntries'>): BatchHandler {
  return oursHandler({
    ...common(env),
    tableName: idempotencyTable(env),
    ...settings,
    effect: (e) => addPoints(env.counted, env.tables.business, e),
  });
}

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
  {
    id: 'ours-default',
    title: 'ours, default',
    setup:
      'sqsIdempotency with no strategy option (the README handler: the library chooses, from AWS_LAMBDA_FUNCTION_MEMORY_SIZE where it is set) + eachRecord; points ADD in the handler',
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, { strategy: 'default' }),
  },
  {
    id: 'ours-claim',
    title: 'ours, claim, batched',
    setup:
      "sqsIdempotency (strategy claim(): a batch's claims in one request, its completions in another, at every memory size) + eachRecord; points ADD in the handler",
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, { strategy: 'claim' }),
  },
  {
    id: 'ours-claim-pipelined',
    title: 'ours, claim, pipelined',
    setup:
      'sqsIdempotency (strategy claim({ pipelined: true }): each record starts when its own claim returns) + eachRecord; points ADD in the handler',
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, { strategy: 'claim', claims: 'pipelined' }),
  },
  {
    id: 'ours-transaction',
    title: 'ours, transaction',
    setup: "sqsIdempotency (strategy 'transaction') + eachRecord; points ADD as tx.update(...), committed with the idempotency record",
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursTransaction(env),
  },
  ...(['never', 'always'] as const).map(
    (probe): Variant => ({
      id: `ours-transaction-probe-${probe}`,
      title: `ours, transaction, probeDuplicates '${probe}'`,
      setup: `as ours, transaction, with transaction({ probeDuplicates: '${probe}' }) (default 'auto')`,
      comparedWith: 'powertools',
      idempotencyTable: 'ours',
      business: 'points',
      idempotent: true,
      optional: true,
      build: (env) => oursTransaction(env, { probeDuplicates: probe }),
    }),
  ),
  {
    id: 'ours-transaction-per-record',
    title: "ours, transaction, commit 'record'",
    setup: "as ours, transaction, with transaction({ commit: 'record' }): each record its own TransactWriteItems right after its handler",
    comparedWith: 'powertools',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    optional: true,
    build: (env) => oursTransaction(env, { commit: 'record' }),
  },
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
    build: (env) => oursTransaction(env, { cacheEntries: env.cacheEntries }),
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
    setup: 'as ours, claim, with the store cache (maxEntries: every key of the run)',
    comparedWith: 'powertools-cache',
    idempotencyTable: 'ours',
    business: 'points',
    idempotent: true,
    build: (env) => oursClaim(env, { strategy: 'claim', cacheEntries: env.cacheEntries }),
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
