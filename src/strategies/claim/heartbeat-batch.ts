/**
 * The claim strategy's batch with the lease heartbeat (`claim({ heartbeat })`): only `claim()` brings it in, so a
 * handler on the default claim strategy bundles none of it.
 */
import { claimsHeartbeat, type KeepLease, type LeaseKeeper } from '../../engine/heartbeat.js';
import type { RecordOutcome } from '../../engine/outcomes.js';
import { releaseClaim, settleClaim, type OwnedRecord } from '../../engine/settle.js';
import type { AdmittedRecord, ClaimAnswer, RunHandler } from '../types.js';
import { ClaimBatch, type StartHeartbeat } from './steps.js';

/**
 * A claim batch whose owned claims each keep a heartbeat: it starts with the
 * run (a record waiting in its lane must keep its claim too) and stops before
 * the claim is completed or released.
 */
class HeartbeatClaimBatch<TRecord> extends ClaimBatch<TRecord> {
  readonly #keepLease: KeepLease;
  /** Heartbeats by message id. */
  readonly #keepers = new Map<string, LeaseKeeper>();

  constructor(keepLease: KeepLease, ...batch: ConstructorParameters<typeof ClaimBatch<TRecord>>) {
    super(...batch);
    this.#keepLease = keepLease;
    for (const a of this.admissions) if (a.kind === 'owned') this.#keep(a.owned);
  }

  #keep(owned: OwnedRecord): void {
    if (owned.token === undefined) return;
    this.#keepers.set(owned.messageId, this.#keepLease({ id: owned.id, token: owned.token, key: owned.key }));
  }

  /** {@link ClaimBatch.run} under the record's heartbeat, which stops before the claim is completed or released. */
  override async run(owned: OwnedRecord, handler: RunHandler): Promise<RecordOutcome> {
    const keeper = this.#keepers.get(owned.messageId);
    const base = { messageId: owned.messageId, key: owned.key };
    // Lost while it waited in its lane: never start it.
    if (keeper?.lost !== undefined) {
      await releaseClaim(this.store, owned);
      return { ...base, kind: 'lease-lost', error: keeper.lost };
    }
    const execution = await this.execute(handler, keeper?.signal);
    await keeper?.stop();
    // The handler gave up on the abort: the claim is (most likely) someone else's; the fenced release can change nothing of theirs.
    if (execution.kind === 'threw' && keeper?.lost !== undefined) {
      await releaseClaim(this.store, owned, execution.error);
      return { ...base, kind: 'lease-lost', error: keeper.lost };
    }
    return settleClaim(this.store, owned, execution, this.settings.storeResult);
  }

  override async claim(owned: OwnedRecord): Promise<ClaimAnswer> {
    const answer = await super.claim(owned);
    if (answer.kind === 'owned') this.#keep(answer.owned);
    return answer;
  }

  override async release(owned: OwnedRecord): Promise<void> {
    await this.#keepers.get(owned.messageId)?.stop();
    await super.release(owned);
  }

  /**
   * The invocation ends: a record still running keeps its claim only until
   * its lease passes. Waits for renewals in flight, so none lands after the
   * claims are settled or the response is given (it would extend a lease
   * left to run out).
   */
  async finish(): Promise<readonly AdmittedRecord<TRecord>[]> {
    await Promise.all([...this.#keepers.values()].map((keeper) => keeper.stop()));
    return [];
  }
}

/** The heartbeat of a batch's claims, started now (they are about to be sent): `claim()`'s `startHeartbeat`. */
export const startHeartbeat: StartHeartbeat = (settings, admit, admission, coalesced) => {
  const keepLease = claimsHeartbeat(settings.heartbeat, settings.store, admit.leaseMs);
  if (keepLease === undefined) return undefined;
  return (admissions) => new HeartbeatClaimBatch(keepLease, settings, admit, admission, admissions, coalesced);
};
