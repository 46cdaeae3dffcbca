/**
 * A cutover from another idempotency library (the `previous` option): for a while after the switch, a delivery this
 * invocation is about to run is first looked up among the records the previous library wrote, so that what it
 * completed before the switch is not applied again, and what it still holds does not run beside it. The port (what a
 * previous library's records must answer) and the one routine that brings our own record in line with the answer.
 * The lifecycles reach the routine only through the plug-in object, so a handler without one bundles none of it.
 */
import { decideRefused, decisionOutcome } from './claim-decide.js';
import type { Clock } from './clock.js';
import { IdempotencyInProgressError, InvalidRecordError, PayloadMismatchError } from './errors.js';
import { completeClaim } from './finish.js';
import type { DuplicateOutcome, RecordOutcome } from './outcomes.js';
import type { IdempotencyRecord } from './record.js';
import { releaseClaim, type OwnedRecord } from './settle.js';
import type { IdempotencyStore } from './store.js';

/** What the previous library recorded of one delivery, as of now. */
export type PreviousFinding =
  /** Nothing that still counts (no record, expired, or given up): run as usual. */
  | { readonly kind: 'none' }
  /** Done before the switch: never run again. `result`: what it stored, if anything. */
  | { readonly kind: 'completed'; readonly result?: unknown }
  /** Held by an invocation of the previous library until `untilMs` (epoch ms): not to run beside it. */
  | { readonly kind: 'in-progress'; readonly untilMs: number }
  /** Recorded with another payload (the previous library's own payload check): never run, as it would refuse it too. */
  | { readonly kind: 'mismatch'; readonly detail: string };

/** The previous library's records, as a plug-in reads them: what `powertoolsRecords()` returns is one. */
export interface PreviousRecordsReader<TInput> {
  /** The library, in messages (`Powertools`). */
  readonly library: string;
  /** Until when its records are consulted (epoch ms); from then on, none is read. */
  readonly untilMs: number;
  /** Time for the window and for the records' expiry. */
  readonly clock: Clock;
  /** What it recorded of `input`; rejects when the record cannot be read (that delivery then fails alone, retried). */
  find(input: TInput, now: number): Promise<PreviousFinding>;
}

/** What a lifecycle hands the plug-in besides the delivery: where our record lives and how it is written. */
export interface PreviousUse {
  readonly store: IdempotencyStore;
  readonly consumer: string;
  readonly leaseMs: number;
  /** Keep the previous library's stored result on our completed record (replayed to our duplicates). */
  readonly storeResult: boolean;
}

/** A delivery decided from the previous library's record instead of being run. */
export type PreviousVerdict =
  /** Done before the switch; our record is now COMPLETED too (acknowledged; EventBridge replays `outcome.existing.result`). */
  | { readonly kind: 'duplicate'; readonly outcome: DuplicateOutcome }
  /** Not run now (held by the previous library, another payload, or a request that failed): `error` is what a single event throws. */
  | { readonly kind: 'refused'; readonly outcome: RecordOutcome; readonly error: unknown };

/**
 * The `previous` option's value: decides a delivery this invocation is about to run, from the previous library's
 * record of it. Made by `powertoolsRecords()` (effectively-once/powertools).
 */
export interface PreviousRecords<TInput> {
  /** The previous library, in messages. */
  readonly library: string;
  /**
   * Decides `owned`, a delivery about to run: claimed by us (claim strategy), or valid (transaction strategy, no
   * token). `undefined`: run it. Otherwise its verdict, our record already brought in line (completed as a duplicate,
   * or our claim released). After the window, answers `undefined` without a request. Never rejects.
   */
  decide(input: TInput, owned: OwnedRecord, use: PreviousUse): Promise<PreviousVerdict | undefined>;
}

/** The `previous` plug-in over a reader of the previous library's records. */
export function previousRecords<TInput>(reader: PreviousRecordsReader<TInput>): PreviousRecords<TInput> {
  return Object.freeze({
    library: reader.library,
    decide: (input: TInput, owned: OwnedRecord, use: PreviousUse) => decideFromPrevious(reader, input, owned, use),
  });
}

/** How our record looks once the previous library's completion is adopted (the duplicate's `existing`). */
function adoptedRecord(owned: OwnedRecord, result: unknown): IdempotencyRecord {
  const { id, messageId, payloadHash } = owned;
  return {
    id,
    status: 'COMPLETED',
    expiresAt: 0,
    attempts: 1,
    messageId,
    ...(payloadHash === undefined ? {} : { payloadHash }),
    ...(result === undefined ? {} : { result }),
  };
}

const duplicate = (owned: OwnedRecord, existing: IdempotencyRecord): PreviousVerdict => ({
  kind: 'duplicate',
  outcome: { kind: 'duplicate', messageId: owned.messageId, key: owned.key, existing, fromCache: false },
});

/** A time for a message: ISO when it is one (a corrupt number never makes the message throw). */
function timeText(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? `${epochMs} ms` : date.toISOString();
}

/** Not run now: it comes back (SQS) or is thrown (EventBridge). */
const refused = (outcome: RecordOutcome, error: unknown): PreviousVerdict => ({ kind: 'refused', outcome, error });

/**
 * Completes our record as a duplicate of the previous library's completion: our claim's, or (transaction strategy,
 * which holds no claim) one claimed now for the purpose. A completion that fails releases the claim: the retry decides
 * again.
 */
async function adoptCompletion(owned: OwnedRecord, result: unknown, use: PreviousUse): Promise<PreviousVerdict> {
  const { store, storeResult } = use;
  const { messageId, key, payloadHash } = owned;
  let token = owned.token;
  if (token === undefined) {
    const claim = { consumer: use.consumer, key, messageId, leaseMs: use.leaseMs, ...(payloadHash === undefined ? {} : { payloadHash }) };
    const found = await store.claim(claim);
    if (found.kind !== 'claimed') {
      // Ours already (done, held by a concurrent delivery, or under another payload): as our own record says.
      const decision = decideRefused({ claim, wording: { differs: 'a different payload', holder: 'invocation' } }, found);
      if (decision.kind === 'duplicate') return duplicate(owned, decision.existing);
      return refused(decisionOutcome(decision, messageId), decision.error);
    }
    token = found.token;
  }
  const done = await completeClaim(store, { id: owned.id, key, token }, result, storeResult);
  switch (done.kind) {
    case 'completed':
      return duplicate(owned, adoptedRecord(owned, storeResult ? result : undefined));
    case 'completed-without-result':
      return duplicate(owned, adoptedRecord(owned, undefined));
    case 'lease-lost':
      return refused({ kind: 'lease-lost', messageId, key, error: done.error }, done.error);
    case 'failed':
      await releaseClaim(store, { ...owned, token }, done.error);
      return refused({ kind: 'failed', messageId, key, error: done.error }, done.error);
  }
}

/** The verdict on `owned` from what the reader finds; `undefined`: run it. */
async function decideFromPrevious<TInput>(
  reader: PreviousRecordsReader<TInput>,
  input: TInput,
  owned: OwnedRecord,
  use: PreviousUse,
): Promise<PreviousVerdict | undefined> {
  const now = reader.clock.now();
  if (now >= reader.untilMs) return undefined;
  const { messageId, key } = owned;
  let found: PreviousFinding;
  try {
    found = await reader.find(input, now);
  } catch (error) {
    // Not read (throttling, network; or the key function threw, which never heals): our claim released, decided again.
    await releaseClaim(use.store, owned, error);
    const outcome: RecordOutcome =
      error instanceof InvalidRecordError ? { kind: 'invalid', messageId, key, error } : { kind: 'failed', messageId, key, error };
    return refused(outcome, error);
  }
  switch (found.kind) {
    case 'none':
      return undefined;
    case 'completed':
      try {
        return await adoptCompletion(owned, found.result, use);
      } catch (error) {
        // A claim request that failed (transaction strategy): nothing is held, the retry decides again.
        return refused({ kind: 'failed', messageId, key, error }, error);
      }
    case 'in-progress': {
      await releaseClaim(use.store, owned);
      const existing: IdempotencyRecord = { id: owned.id, status: 'IN_PROGRESS', leaseUntil: found.untilMs, expiresAt: 0, attempts: 0 };
      const message = `${owned.id} is being processed by ${reader.library} (its claim holds until ${timeText(found.untilMs)}).`;
      return refused({ kind: 'in-progress', messageId, key, existing }, new IdempotencyInProgressError(message, { key, existing }));
    }
    case 'mismatch': {
      await releaseClaim(use.store, owned);
      const error = new PayloadMismatchError(`${reader.library} recorded this key with a different payload (${found.detail}).`, { key });
      return refused({ kind: 'invalid', messageId, key, error }, error);
    }
  }
}
