/**
 * Crash points around the idempotency store: the Lambda dies right after its claim, after the effect but before the
 * completion, or after the completion (the response never reaches the event source). A crash abandons the invocation
 * (`abandon`): no release, no `after`/`onError`, nothing acknowledged, as a killed Lambda.
 */
import {
  isTransactionalStore,
  type ClaimInput,
  type CommitInput,
  type CompleteInput,
  type IdempotencyStore,
  type StoreAnswer,
  type TransactionalIdempotencyStore,
} from '../engine/store.js';
import type { IdempotencyRecord } from '../engine/record.js';
import { chanceOf, Occurrences } from './chance.js';
import { checkOptions, isPlainObject, type OptionRules } from '../engine/options.js';
import { abandon } from './faults.js';
import { checkpoint } from './invocation.js';
import { intIn } from './rules.js';

/**
 * Where the pipeline dies:
 * - `after-claim`: the claim is written, the handler never runs;
 * - `before-complete`: the handler's effect happened, the completion is not
 *   written (claim strategy); under the transaction strategy the effect is
 *   part of the commit, so nothing is written;
 * - `after-complete`: the completion (or commit) is written, the batch
 *   response is never returned.
 */
export type PipelineCrashPoint = 'after-claim' | 'before-complete' | 'after-complete';

const POINTS: readonly PipelineCrashPoint[] = ['after-claim', 'before-complete', 'after-complete'];

/** Options of {@link crashingStore}. */
export interface CrashingStoreOptions {
  /** Chance (0..1) of dying at each point, per record id and occurrence. */
  readonly probability: Partial<Record<PipelineCrashPoint, number>>;
  /** Seed of the decisions (default 1). */
  readonly seed?: number;
  /** Crashes per record id and point at most (default 1), so every record gets through in the end. */
  readonly maxPerRecord?: number;
  /** Told of each crash as it happens. */
  readonly onCrash?: (crash: PipelineCrash) => void;
}

/** One crash. */
export interface PipelineCrash {
  readonly point: PipelineCrashPoint;
  /** The idempotency record id (`consumer#key`, or its hash). */
  readonly id: string;
}

/** The wrapped store, with what it did (and `commit` when the wrapped store has it). */
export interface CrashingStore extends IdempotencyStore {
  /** Every crash so far, in order. */
  readonly crashes: readonly PipelineCrash[];
}

const optionRules: OptionRules = {
  probability: {
    expected: `an object with numbers from 0 to 1 for ${POINTS.join(', ')}`,
    required: true,
    check: (v) =>
      isPlainObject(v) &&
      Object.entries(v).every(
        ([k, p]) => POINTS.includes(k as PipelineCrashPoint) && (p === undefined || (typeof p === 'number' && p >= 0 && p <= 1)),
      ),
  },
  seed: intIn(0, 2 ** 32 - 1),
  maxPerRecord: intIn(1),
  onCrash: { expected: 'a function', check: (v) => typeof v === 'function' },
};

/**
 * Wraps `store` with seeded crash points (see {@link PipelineCrashPoint}),
 * its batched calls too (`claimMany`, `completeMany`: each record's point in
 * turn) when the store has them.
 * Every call also passes a `checkpoint` before and after, so work a crash
 * left running (other records of the batch) stops at its next store call.
 *
 * @throws TypeError for an unknown point or a probability outside 0..1.
 *
 * @example
 * ```ts
 * import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
 * import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
 * import { DynamoDBIdempotencyStore } from 'effectively-once';
 * import { crashingStore } from 'effectively-once/testing';
 * const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
 * const store = crashingStore(new DynamoDBIdempotencyStore({ client: doc, tableName: 'idempotency' }), {
 *   seed: 3,
 *   probability: { 'after-claim': 0.02, 'before-complete': 0.02, 'after-complete': 0.02 },
 * });
 * console.log(store.crashes.length); // 0
 * ```
 */
export function crashingStore(
  store: TransactionalIdempotencyStore,
  options: CrashingStoreOptions,
): CrashingStore & TransactionalIdempotencyStore;
export function crashingStore(store: IdempotencyStore, options: CrashingStoreOptions): CrashingStore;
export function crashingStore(store: IdempotencyStore, options: CrashingStoreOptions): CrashingStore {
  checkOptions('crashingStore', options, optionRules);
  const seed = options.seed ?? 1;
  const maxPerRecord = options.maxPerRecord ?? 1;
  const crashes: PipelineCrash[] = [];
  const passes = new Occurrences();
  const crashesPerLabel = new Map<string, number>();

  async function maybeCrash(point: PipelineCrashPoint, id: string): Promise<void> {
    const p = options.probability[point] ?? 0;
    if (p === 0) return;
    const label = `${point}|${id}`;
    const occurrence = passes.next(label);
    if ((crashesPerLabel.get(label) ?? 0) >= maxPerRecord || chanceOf(seed, `${label}|${occurrence}`) >= p) return;
    crashesPerLabel.set(label, (crashesPerLabel.get(label) ?? 0) + 1);
    const crash = { point, id };
    crashes.push(crash);
    options.onCrash?.(crash);
    await abandon(`simulated crash ${point} of ${id}`);
  }

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    await checkpoint();
    const result = await call();
    await checkpoint();
    return result;
  }

  const wrapped: CrashingStore = {
    crashes,
    recordId: (consumer, key) => store.recordId(consumer, key),
    async claim(input: ClaimInput) {
      const result = await guarded(() => store.claim(input));
      if (result.kind === 'claimed') await maybeCrash('after-claim', result.id);
      return result;
    },
    async complete(input: CompleteInput) {
      await maybeCrash('before-complete', input.id);
      const result = await guarded(() => store.complete(input));
      if (result.kind === 'ok') await maybeCrash('after-complete', input.id);
      return result;
    },
    release: (input) => guarded(() => store.release(input)),
    get: (id) => guarded(() => store.get(id)),
  };

  /** The crash point after each record whose batched answer `wrote`. */
  async function afterEach<T>(point: PipelineCrashPoint, answers: StoreAnswer<T>[], ids: readonly string[], wrote: (r: T) => boolean) {
    for (const [i, answer] of answers.entries()) {
      if (answer.kind === 'result' && wrote(answer.result)) await maybeCrash(point, ids[i] ?? '');
    }
    return answers;
  }
  // Batched claims and completions (the DynamoDB store's default path): the same crash points, each record's in turn.
  const claimMany = store.claimMany?.bind(store);
  if (claimMany !== undefined) {
    wrapped.claimMany = async (inputs: readonly ClaimInput[]) => {
      const answers = await guarded(() => claimMany(inputs));
      const ids = answers.map((a) => (a.kind === 'result' ? a.result.id : ''));
      return afterEach('after-claim', answers, ids, (r) => r.kind === 'claimed');
    };
  }
  const completeMany = store.completeMany?.bind(store);
  if (completeMany !== undefined) {
    // One crash point before the batch (the whole invocation dies before it is sent), one after each completed record.
    wrapped.completeMany = async (inputs: readonly CompleteInput[]) => {
      for (const input of inputs) await maybeCrash('before-complete', input.id);
      const ids = inputs.map((input) => input.id);
      return afterEach('after-complete', await guarded(() => completeMany(inputs)), ids, (r) => r.kind === 'ok');
    };
  }
  if (!isTransactionalStore(store)) return wrapped;
  const group = store.commitGroup?.bind(store);
  const getMany = store.getMany?.bind(store);
  const transactional: CrashingStore & TransactionalIdempotencyStore = {
    ...wrapped,
    async commit(input: CommitInput) {
      const id = store.recordId(input.consumer, input.key);
      await maybeCrash('before-complete', id);
      const result = await guarded(() => store.commit(input));
      if (result.kind === 'committed') await maybeCrash('after-complete', id);
      return result;
    },
    // Group commit: one crash point before the group (the whole invocation dies), one after each committed record.
    ...(group === undefined
      ? {}
      : {
          async commitGroup(inputs: readonly CommitInput[], found?: ReadonlyMap<string, IdempotencyRecord>) {
            const ids = inputs.map((input) => store.recordId(input.consumer, input.key));
            for (const id of ids) await maybeCrash('before-complete', id);
            return afterEach('after-complete', await guarded(() => group(inputs, found)), ids, (r) => r.kind === 'committed');
          },
          // The duplicate probe only reads: no crash point of its own.
          ...(getMany === undefined ? {} : { getMany: (ids: readonly string[]) => guarded(() => getMany(ids)) }),
        }),
  };
  return transactional;
}
