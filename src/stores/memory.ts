/**
 * An in-memory `IdempotencyStore` (claim strategy) for tests and local runs.
 * It decides with the same pure rules as the DynamoDB store (`claimVerdict`,
 * `isOwnWrite`, `retentionExpired`); each write is one synchronous
 * compare-and-set on a `Map`, the in-memory equivalent of a conditional
 * write, so two claims can never both win.
 */
import { randomUUID } from 'node:crypto';
import { claimVerdict } from '../engine/claim.js';
import { systemClock, toEpochSeconds, type Clock } from '../engine/clock.js';
import { recordId } from '../engine/keys.js';
import { checkLease, retentionExpired } from '../engine/lease.js';
import { checkOptions, is, type OptionRules } from '../engine/options.js';
import { isOwnWrite, type IdempotencyRecord } from '../engine/record.js';
import type { ReleaseMode } from './dynamodb/options.js';
import { encodeResult, errorText } from './dynamodb/records.js';
import type {
  ClaimInput,
  ClaimResult,
  CompleteInput,
  FencedWriteResult,
  IdempotencyStore,
  ReleaseInput,
  RenewInput,
  StoreAnswer,
} from '../engine/store.js';
import { answerOf } from '../engine/store.js';

/** Options of {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** Source of time (epoch ms). Default the system clock; inject a `ManualClock` in tests. */
  readonly clock?: Clock;
  /** How long a COMPLETED (or FAILED) record counts, ms. Default 24 h. */
  readonly retentionMs?: number;
  /** Keep SHA-256 of the business key instead of the key. Default false. */
  readonly hashKeys?: boolean;
  /** `'delete'` (default) forgets a released claim; `'mark-failed'` keeps it as FAILED with the last error. */
  readonly release?: ReleaseMode;
}

const rules: OptionRules = {
  clock: is.clock,
  retentionMs: is.retentionMs,
  hashKeys: is.boolean,
  release: is.oneOf('delete', 'mark-failed'),
};

/** A stored record: the result is kept as JSON text, so every read returns a fresh copy, as a real store would. */
interface Stored {
  readonly record: Omit<IdempotencyRecord, 'result'>;
  readonly resultJson?: string;
}

/** One attempt at a conditional write: applied, or refused with the record that refused it. */
type Attempt =
  | { readonly applied: true; readonly record?: IdempotencyRecord }
  | { readonly applied: false; readonly current?: IdempotencyRecord };

/**
 * Idempotency records in a `Map`. Results are stored as JSON text (as the
 * DynamoDB store does), so a stored result is a copy and replays exactly;
 * there is no item size limit. Records past their retention count as absent.
 *
 * @example
 * ```ts
 * import { eachRecord, sqsIdempotency } from 'effectively-once';
 * import { ManualClock, MemoryIdempotencyStore } from 'effectively-once/testing';
 *
 * const store = new MemoryIdempotencyStore({ clock: new ManualClock() });
 * const middleware = sqsIdempotency({ store, consumer: 'payments', key: (r) => r.messageId });
 * const claim = await store.claim({ consumer: 'payments', key: 'order-42', leaseMs: 30_000 });
 * if (claim.kind === 'claimed') await store.complete({ id: claim.id, token: claim.token });
 * console.log((await store.get(store.recordId('payments', 'order-42')))?.status); // 'COMPLETED'
 * console.log(typeof middleware.before, typeof eachRecord); // 'function' 'function'
 * ```
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, Stored>();
  readonly #clock: Clock;
  readonly #retentionMs: number;
  readonly #hashKeys: boolean;
  readonly #release: ReleaseMode;
  #toLose = 0;
  #lost = 0;

  /** @throws TypeError naming the first unknown or wrongly typed option. */
  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    checkOptions('MemoryIdempotencyStore', options, rules);
    this.#clock = options.clock ?? systemClock;
    this.#retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
    this.#hashKeys = options.hashKeys ?? false;
    this.#release = options.release ?? 'delete';
  }

  /** `consumer#key`, with the key replaced by its SHA-256 when `hashKeys` is set. */
  recordId(consumer: string, key: string): string {
    return recordId(consumer, key, this.#hashKeys);
  }

  /**
   * Fault hook (for `storeContract`'s own-write cases): the next write is
   * applied, its answer is lost, and the store sends it again, as the AWS
   * SDK retries a request after a network error. The retry then meets the
   * write its first attempt made.
   */
  loseNextResponse(): void {
    this.#toLose += 1;
  }

  /** How many write answers {@link loseNextResponse} has lost so far. */
  get lostResponses(): number {
    return this.#lost;
  }

  /** Claims the key as IN_PROGRESS for `leaseMs`, unless a live record holds it. */
  async claim(input: ClaimInput): Promise<ClaimResult> {
    checkLease('claim', input.leaseMs);
    const id = this.recordId(input.consumer, input.key);
    const token = randomUUID();
    const now = this.#clock.now();
    const attempt = this.#write(() => {
      const current = this.#current(id);
      if (claimVerdict(current, now) !== 'free') return refused(current);
      return this.#put(id, { record: this.#claimed(id, token, now, input, current?.attempts ?? 0) });
    });
    if (attempt.applied && attempt.record !== undefined) return { kind: 'claimed', id, token, record: attempt.record };
    const existing = attempt.applied ? undefined : attempt.current;
    if (existing === undefined) throw new Error(`MemoryIdempotencyStore: the claim of ${id} was refused without a record.`);
    // A retried claim whose first attempt landed: the claim is ours.
    if (isOwnWrite(existing, token, 'IN_PROGRESS')) return { kind: 'claimed', id, token, record: existing };
    if (claimVerdict(existing, now) !== 'duplicate') return { kind: 'in-progress', id, existing };
    return { kind: 'completed', id, existing, fromCache: false };
  }

  /**
   * Marks the claim COMPLETED, fenced on its owner token.
   * @throws UnstorableResultError when the result is stored and is not JSON (the claim stays IN_PROGRESS).
   */
  async complete(input: CompleteInput): Promise<FencedWriteResult> {
    // Encoded before the write, so an unstorable result changes nothing.
    const encoded = input.storeResult === true ? encodeResult(input.result)['j'] : undefined;
    const resultJson = typeof encoded === 'string' ? encoded : undefined;
    const now = this.#clock.now();
    const attempt = this.#fenced(input.id, input.token, (record) => {
      const { leaseUntil: _lease, ...rest } = record;
      const completed = { ...rest, status: 'COMPLETED' as const, completedAt: now, expiresAt: toEpochSeconds(now + this.#retentionMs) };
      return resultJson === undefined ? { record: completed } : { record: completed, resultJson };
    });
    // A retried completion whose first attempt landed: it is done, and by us.
    if (!attempt.applied && attempt.current !== undefined && isOwnWrite(attempt.current, input.token, 'COMPLETED'))
      return { kind: 'ok', record: attempt.current };
    return answer(attempt);
  }

  /** Claims each key as {@link claim} would, one answer per input in input order (the batched path of the claim strategy). */
  async claimMany(inputs: readonly ClaimInput[]): Promise<StoreAnswer<ClaimResult>[]> {
    return Promise.all(inputs.map((input) => answerOf(() => this.claim(input))));
  }

  /** Completes each claim as {@link complete} would, one answer per input in input order (the batched path of the claim strategy). */
  async completeMany(inputs: readonly CompleteInput[]): Promise<StoreAnswer<FencedWriteResult>[]> {
    return Promise.all(inputs.map((input) => answerOf(() => this.complete(input))));
  }

  /** Gives the claim up (forgets it, or FAILED with `release: 'mark-failed'`), fenced on its owner token. */
  async release(input: ReleaseInput): Promise<FencedWriteResult> {
    const now = this.#clock.now();
    const attempt = this.#fenced(input.id, input.token, (record) => {
      if (this.#release === 'delete') return undefined;
      const { owner: _owner, leaseUntil: _lease, ...rest } = record;
      const lastError = errorText(input.error ?? 'released without an error');
      return { record: { ...rest, status: 'FAILED' as const, lastError, expiresAt: toEpochSeconds(now + this.#retentionMs) } };
    });
    return answer(attempt);
  }

  /** Extends the claim's lease to now + `leaseMs` (the heartbeat), fenced on its owner token. */
  async renew(input: RenewInput): Promise<FencedWriteResult> {
    checkLease('renew', input.leaseMs);
    const now = this.#clock.now();
    // An IN_PROGRESS record holds no result; the TTL moves with the lease, as in the claim.
    const attempt = this.#fenced(input.id, input.token, ({ result: _none, ...record }) => ({
      record: { ...record, leaseUntil: now + input.leaseMs, expiresAt: toEpochSeconds(now + Math.max(this.#retentionMs, input.leaseMs)) },
    }));
    return answer(attempt);
  }

  /** The record, or undefined when there is none or its retention has passed. */
  async get(id: string): Promise<IdempotencyRecord | undefined> {
    const record = this.#current(id);
    return record === undefined || retentionExpired(record.expiresAt, this.#clock.now()) ? undefined : record;
  }

  // The stored record as callers see it, including one past its retention (the conditions judge that).
  #current(id: string): IdempotencyRecord | undefined {
    const stored = this.#records.get(id);
    if (stored === undefined) return undefined;
    return stored.resultJson === undefined ? { ...stored.record } : { ...stored.record, result: JSON.parse(stored.resultJson) as unknown };
  }

  #put(id: string, stored: Stored | undefined): Attempt {
    if (stored === undefined) {
      this.#records.delete(id);
      return { applied: true };
    }
    this.#records.set(id, stored);
    return { applied: true, record: this.#current(id) as IdempotencyRecord };
  }

  // The fencing condition of every write after the claim: still IN_PROGRESS and still ours.
  #fenced(id: string, token: string, next: (record: IdempotencyRecord) => Stored | undefined): Attempt {
    return this.#write(() => {
      const current = this.#current(id);
      if (current === undefined || current.status !== 'IN_PROGRESS' || current.owner !== token) return refused(current);
      return this.#put(id, next(current));
    });
  }

  // One conditional write; with a lost answer armed, applied once and sent again (the retry's answer counts).
  #write(attempt: () => Attempt): Attempt {
    if (this.#toLose > 0) {
      this.#toLose -= 1;
      this.#lost += 1;
      attempt();
    }
    return attempt();
  }

  #claimed(id: string, token: string, now: number, input: ClaimInput, attempts: number): Omit<IdempotencyRecord, 'result'> {
    return {
      id,
      status: 'IN_PROGRESS',
      owner: token,
      leaseUntil: now + input.leaseMs,
      // Never shorter than the lease, so retention can never end a live claim.
      expiresAt: toEpochSeconds(now + Math.max(this.#retentionMs, input.leaseMs)),
      attempts: attempts + 1,
      claimedAt: now,
      ...(input.payloadHash === undefined ? {} : { payloadHash: input.payloadHash }),
      ...(input.messageId === undefined ? {} : { messageId: input.messageId }),
    };
  }
}

function refused(current: IdempotencyRecord | undefined): Attempt {
  return current === undefined ? { applied: false } : { applied: false, current };
}

/** A fenced write's answer: `ok` with the record it wrote, or `lease-lost` with the record that refused it. */
function answer(attempt: Attempt): FencedWriteResult {
  if (attempt.applied) return attempt.record === undefined ? { kind: 'ok' } : { kind: 'ok', record: attempt.record };
  return attempt.current === undefined ? { kind: 'lease-lost' } : { kind: 'lease-lost', current: attempt.current };
}
