/**
 * `storeContract`: the rules every `IdempotencyStore` must keep, as a suite
 * any store proves itself with (the DynamoDB store and the memory store run
 * it in this project's tests; a third party's store runs it in its own).
 * Framework-neutral: it returns named cases that throw `node:assert` errors,
 * and the caller registers them with its test runner.
 */
import type { ReleaseMode } from '../stores/dynamodb/options.js';
import type { IdempotencyStore } from '../engine/store.js';
import { ManualClock } from './clock.js';
import { batchedCases } from './store-contract-batched.js';
import { claimCases, fencingCases } from './store-contract-claims.js';
import { lostResponseCases, releaseCases, resultCases, retentionCases } from './store-contract-records.js';
import { renewCases } from './store-contract-renew.js';

/** What the factory must build the store with, for one case. */
export interface StoreContractSetup {
  /** The store must read time from this clock (leases, retention); the case moves it. */
  readonly clock: ManualClock;
  /** How long a COMPLETED record must keep deduplicating, ms (the store's retention). */
  readonly retentionMs: number;
  /** What `release` must do: forget the claim (`delete`) or keep it as FAILED (`mark-failed`). */
  readonly release: ReleaseMode;
}

/** The store under test, and what the contract may do to it. */
export interface StoreContractSubject {
  readonly store: IdempotencyStore;
  /**
   * Optional fault hook for the own-write cases: run `call` so that the first
   * write request it makes is applied but its answer is lost, and the
   * store's own retry of that request (e.g. the AWS SDK's) meets the write
   * that already landed. Throw if no answer was lost, so the case cannot
   * pass without the fault. Required unless the contract runs with
   * `ownWrite: false`.
   */
  readonly loseFirstResponse?: <T>(call: () => Promise<T>) => Promise<T>;
  /** Called after the case, pass or fail (close connections, drop tables). */
  readonly dispose?: () => void | Promise<void>;
}

/** Builds a fresh store for one case. */
export type StoreContractFactory = (setup: StoreContractSetup) => StoreContractSubject | Promise<StoreContractSubject>;

/** Options of {@link storeContract}. */
export interface StoreContractOptions {
  /**
   * The `release` modes the store supports (default `['delete']`). The
   * FAILED-record cases run for `'mark-failed'`; the other cases use the
   * first mode given.
   */
  readonly releaseModes?: readonly ReleaseMode[];
  /**
   * Run the own-write cases (default true): a retried write whose first
   * attempt landed is recognised as the store's own. They need the
   * subject's `loseFirstResponse` hook; leave them out only for a store
   * whose writes are never retried after they may have landed.
   */
  readonly ownWrite?: boolean;
  /**
   * Run the `renew` cases (default true): the lease heartbeat
   * (`claim({ heartbeat })`) needs the store's optional `renew`. Leave them
   * out only for a store without `renew`.
   */
  readonly renew?: boolean;
  /** Time the clock starts at, epoch ms (default: now, so a real table sees current records). */
  readonly startAt?: number;
}

/** One case of the contract: register `run` with your test runner under `name`; it throws an `AssertionError` when the rule is broken. */
export interface StoreContractCase {
  readonly name: string;
  readonly run: () => Promise<void>;
}

const RELEASE_MODES: readonly ReleaseMode[] = ['delete', 'mark-failed'];
/** Retention the contract asks for: long enough that no lease in the cases reaches it by accident. */
const RETENTION_MS = 60 * 60_000;

/**
 * The contract's cases for the store `factory` builds: conditional claim,
 * lease expiry, fencing of complete and release, own-write recognition after
 * a retried write (with the subject's `loseFirstResponse` hook), retention,
 * lease renewal (`renew`, unless `renew: false`), the batched calls `claimMany` and
 * `completeMany` (when the store has them), stored results, FAILED records (with `releaseModes` including
 * `'mark-failed'`), and the payload hash kept and returned. Each case builds
 * its own store with a fresh `ManualClock` and its own consumer name, so
 * cases may share one table.
 *
 * @throws TypeError when `factory` is not a function or `releaseModes` is empty or unknown.
 *
 * @example
 * ```ts
 * import { describe, it } from 'vitest';
 * import { MemoryIdempotencyStore, storeContract } from 'effectively-once/testing';
 *
 * describe('MemoryIdempotencyStore keeps the store contract', () => {
 *   const cases = storeContract(
 *     ({ clock, retentionMs, release }) => {
 *       const store = new MemoryIdempotencyStore({ clock, retentionMs, release });
 *       return {
 *         store,
 *         loseFirstResponse: async (call) => {
 *           const before = store.lostResponses;
 *           store.loseNextResponse();
 *           const result = await call();
 *           if (store.lostResponses !== before + 1) throw new Error('no answer was lost');
 *           return result;
 *         },
 *       };
 *     },
 *     { releaseModes: ['delete', 'mark-failed'] },
 *   );
 *   for (const c of cases) it(c.name, c.run);
 * });
 * ```
 */
export function storeContract(factory: StoreContractFactory, options: StoreContractOptions = {}): StoreContractCase[] {
  if (typeof factory !== 'function') throw new TypeError('storeContract: "factory" must be a function that builds a store.');
  const modes = options.releaseModes ?? ['delete'];
  if (!Array.isArray(modes) || modes.length === 0 || !modes.every((m) => RELEASE_MODES.includes(m))) {
    throw new TypeError(`storeContract: "releaseModes" must be a non-empty array of ${RELEASE_MODES.map((m) => `"${m}"`).join(', ')}.`);
  }
  const startAt = options.startAt ?? Date.now();
  const named = [
    ...[...claimCases, ...fencingCases, ...resultCases, ...retentionCases, ...batchedCases].map((c) => ({
      ...c,
      release: modes[0] as ReleaseMode,
    })),
    ...(options.renew === false ? [] : renewCases.map((c) => ({ ...c, release: modes[0] as ReleaseMode }))),
    ...(options.ownWrite === false ? [] : lostResponseCases().map((c) => ({ ...c, release: modes[0] as ReleaseMode }))),
    ...modes.flatMap((release) => releaseCases(release).map((c) => ({ ...c, release }))),
  ];
  return named.map(({ name, body, release }) => ({
    name,
    run: async () => {
      const clock = new ManualClock(startAt);
      const subject = await factory({ clock, retentionMs: RETENTION_MS, release });
      try {
        await body({ ...subject, clock, retentionMs: RETENTION_MS, consumer: uniqueConsumer() });
      } finally {
        await subject.dispose?.();
      }
    },
  }));
}

let consumerSeq = 0;

// Unique per case and per process, so cases can share one table and a rerun never meets an old record.
function uniqueConsumer(): string {
  consumerSeq += 1;
  return `contract-${process.pid}-${Date.now().toString(36)}-${consumerSeq}`;
}
