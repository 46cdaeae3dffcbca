/**
 * Claim, then decide: how every path (a batch's records, a single event, `idempotent()`) turns what a claim found into
 * a decision: claimed (run the effect), payload mismatch, duplicate (with the stored record), or in progress (after
 * waiting for the owner, when asked to: `claimAndDecide`; a batch never waits, so `decideRefused` alone decides it).
 * Callers map the decision to their own outcome or error; nothing here logs or throws on a decision.
 */
import { systemClock, type Clock } from './clock.js';
import { IdempotencyInProgressError, type PayloadMismatchError } from './errors.js';
import type { RecordOutcome } from './outcomes.js';
import { payloadMismatch } from './prepare.js';
import type { IdempotencyRecord } from './record.js';
import type { ClaimWait } from './wait.js';
import type { ClaimInput, ClaimResult, IdempotencyStore } from './store.js';

/** What claiming a key decided, about the record `id` of `key`. */
export type ClaimDecision = Readonly<Record<'id' | 'key', string>> &
  (
    | {
        /** The key is ours: run the effect, then finish the claim with `token`. */
        readonly kind: 'claimed';
        readonly token: string;
        /** When the winning claim (or resume) was sent (local ms): its lease is proven from then. */
        readonly sentAt: number;
        /** The claim was this durable execution's own, taken over again at a replay (see `resumeOwnClaim`). */
        readonly resumed: boolean;
      }
    /** The key is recorded with another payload: never run. */
    | {
        readonly kind: 'mismatch';
        readonly existing: IdempotencyRecord;
        readonly error: PayloadMismatchError;
      }
    /** The key is done: answer with the stored record without running. */
    | {
        readonly kind: 'duplicate';
        readonly existing: IdempotencyRecord;
        readonly fromCache: boolean;
      }
    /** A live claim of someone else holds the key (after the wait, if one was asked for and ran out). */
    | {
        readonly kind: 'in-progress';
        readonly existing: IdempotencyRecord;
        readonly error: IdempotencyInProgressError;
      }
  );

/** A decision that does not run the effect. */
export type RefusalDecision = Exclude<ClaimDecision, { readonly kind: 'claimed' }>;

/** How the errors of a decision read: the caller's words for what differs and who holds the key. */
export interface ClaimWording {
  /** Completes "Key already recorded under <id> with ...", e.g. `a different payload`. */
  readonly differs: string;
  /** Completes "<id> is being processed by another ...", e.g. `invocation`. */
  readonly holder: string;
}

/**
 * A durable execution (Lambda durable functions) claiming its key: the
 * claim carries `marker` as its `messageId`, so a replay of the same
 * execution recognises its own IN_PROGRESS claim and resumes it instead of
 * being refused (see docs/durable-functions.md).
 */
export interface ClaimExecution {
  /** Identifies the execution in the claim record (`messageId`); derived from its durable execution ARN. */
  readonly marker: string;
  /** {@link resumeOwnClaim}, carried by the execution so that a batch, which has none, does not bundle it. */
  readonly resume: typeof resumeOwnClaim;
}

/** What {@link claimAndDecide} needs. */
export interface ClaimAsk {
  readonly store: IdempotencyStore;
  readonly claim: ClaimInput;
  readonly wording: ClaimWording;
  /** Absent: an in-progress key is decided at once (`inProgress: 'throw'`, and every batch). */
  readonly wait?: ClaimWait | undefined;
  readonly execution?: ClaimExecution | undefined;
  /** Wall clock for the wait (default the system clock). */
  readonly clock?: Clock;
}

export type Refused = Exclude<ClaimResult, { readonly kind: 'claimed' }>;

/** The decision on a claim refused by `existing`: a payload mismatch first, then done or in progress (a batch's whole decision). */
export function decideRefused(ask: Pick<ClaimAsk, 'claim' | 'wording'>, refused: Refused): RefusalDecision {
  const { id, existing } = refused;
  const { key } = ask.claim;
  const message = `Key already recorded under ${id} with ${ask.wording.differs}.`;
  const error = payloadMismatch(ask.claim.payloadHash, existing.payloadHash, message, { key, existing });
  if (error !== undefined) return { kind: 'mismatch', id, key, existing, error };
  if (refused.kind === 'completed') return { kind: 'duplicate', id, key, existing, fromCache: refused.fromCache };
  const busy = new IdempotencyInProgressError(`${id} is being processed by another ${ask.wording.holder}.`, { key, existing });
  return { kind: 'in-progress', id, key, existing, error: busy };
}

/**
 * A durable execution's replay finding its own IN_PROGRESS claim (its `messageId` is the execution's marker): it takes
 * the claim's token and renews the lease from now, fenced on it. `not-own`: someone else's claim; `changed`: ours, but
 * it changed hands before the renewal landed: claim again.
 */
export async function resumeOwnClaim(
  ask: ClaimAsk & { readonly execution: ClaimExecution },
  refused: Refused,
  sentAt: number,
): Promise<ClaimDecision | 'not-own' | 'changed'> {
  const { existing, id } = refused;
  if (existing.status !== 'IN_PROGRESS') return 'not-own';
  if (existing.messageId !== ask.execution.marker || existing.owner === undefined) return 'not-own';
  const token = existing.owner;
  // A store without renew keeps the first claim's lease, which already spans the execution (docs/durable-functions.md).
  if (ask.store.renew !== undefined) {
    const renewed = await ask.store.renew({ id, token, leaseMs: ask.claim.leaseMs });
    if (renewed.kind === 'lease-lost') return 'changed';
  }
  return { kind: 'claimed', id, key: ask.claim.key, token, sentAt, resumed: true };
}

/**
 * Claims `ask.claim` and decides. With `ask.wait`, an in-progress key is
 * polled until its owner completes it (a duplicate of the record it stored),
 * gives it up (claimed again here) or the deadline passes (in progress).
 * Store errors (throttling, network) are thrown: the caller fails that one
 * record or event.
 */
export async function claimAndDecide(ask: ClaimAsk): Promise<ClaimDecision> {
  const clock = ask.clock ?? systemClock;
  for (;;) {
    const sentAt = clock.now();
    const claim = await ask.store.claim(ask.claim);
    if (claim.kind === 'claimed') return { kind: 'claimed', id: claim.id, key: ask.claim.key, token: claim.token, sentAt, resumed: false };
    const decision = decideRefused(ask, claim);
    if (decision.kind !== 'in-progress') return decision;
    const resumed =
      ask.execution === undefined ? 'not-own' : await ask.execution.resume({ ...ask, execution: ask.execution }, claim, sentAt);
    if (resumed === 'changed') continue;
    if (resumed !== 'not-own') return resumed;
    const budget = ask.wait === undefined ? 0 : ask.wait.until - clock.now();
    if (ask.wait === undefined || budget <= 0) return decision;
    const waited = await ask.wait.poll(ask.store, claim.id, claim.existing, budget, ask.wait.policy, clock);
    if (waited.kind === 'timed-out') return decision;
    if (waited.kind === 'completed')
      return { kind: 'duplicate', id: claim.id, key: ask.claim.key, existing: waited.record, fromCache: false };
    // Claimable: the owner released it or its lease passed; claim again.
  }
}

/**
 * The record outcome of a decision that does not run the effect (the batch
 * and single-event paths log and count it): invalid, duplicate or in progress.
 */
export function decisionOutcome(decision: RefusalDecision, messageId: string): RecordOutcome {
  const { key, existing } = decision;
  switch (decision.kind) {
    case 'mismatch':
      return { kind: 'invalid', messageId, key, error: decision.error };
    case 'duplicate':
      return { kind: 'duplicate', messageId, key, existing, fromCache: decision.fromCache };
    case 'in-progress':
      return { kind: 'in-progress', messageId, key, existing };
  }
}
