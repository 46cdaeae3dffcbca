/**
 * Group commit's duplicate probe, as pure rules: when a batch is worth one
 * consistent read of its idempotency records before the commit, and what a
 * record that read found means for the commit. The read is only a hint: it
 * may answer a record as a duplicate exactly where the commit's refused
 * idempotency Put would have (COMPLETED within its retention, same payload);
 * it never decides that an effect may run, which stays the conditional Put's
 * call.
 */
import { claimVerdict } from '../../engine/claim.js';
import { payloadsDiffer } from '../../engine/hashing.js';
import type { IdempotencyRecord } from '../../engine/record.js';

/**
 * When group commit reads the batch's idempotency records before committing:
 * `'auto'` when this container's recent records were duplicates often enough
 * to pay for the read, `'always'`, or `'never'`.
 */
export type ProbeMode = 'auto' | 'always' | 'never';

/**
 * - `duplicate`: answer the record as a duplicate now, without committing it;
 * - `blocked`: the commit will most likely be refused (a live claim, another
 *   payload): commit it in a transaction of its own, so that it cancels no other record;
 * - `free`: commit it with the others.
 */
export type ProbeVerdict = 'duplicate' | 'blocked' | 'free';

/**
 * What a record found by the probe means for a commit at `now` that carries
 * `payloadHash`.
 *
 * @example
 * ```ts
 * import { probeVerdict } from './duplicate-probe.js';
 * const now = 1_700_000_000_000;
 * const done = { id: 'c#k', status: 'COMPLETED' as const, expiresAt: now / 1000 + 60, attempts: 1 };
 * probeVerdict(done, now, undefined); // 'duplicate'
 * probeVerdict(undefined, now, undefined); // 'free'
 * ```
 */
export function probeVerdict(found: IdempotencyRecord | undefined, now: number, payloadHash: string | undefined): ProbeVerdict {
  switch (claimVerdict(found, now)) {
    case 'free':
      return 'free';
    case 'in-progress':
      return 'blocked';
    case 'duplicate':
      // Another payload: the commit's own refusal reports it (as it does without the probe).
      return payloadsDiffer(payloadHash, found?.payloadHash) ? 'blocked' : 'duplicate';
  }
}

/**
 * The probe pays when a batch likely holds a duplicate: on DynamoDB Local a
 * consistent `BatchGetItem` of 10 keys costs about a quarter of the extra
 * round a duplicate's cancelled 20-item `TransactWriteItems` costs
 * (bench/probe-transactions.ts: 3.4 vs 14.7 ms), so it is sent when the
 * chance that the batch holds one is at least that quarter.
 */
export const PROBE_WORTH = 0.25;

/** Weight of one record in the running duplicate rate: a half-life of about 140 records. */
const RECORD_WEIGHT = 0.005;

/**
 * A container's recent duplicate rate (among the records its group commits
 * decided) and the probe decision it leads to. Starts at 0: a fresh container
 * probes only after it has met duplicates.
 *
 * @example
 * ```ts
 * import { DuplicateRate } from './duplicate-probe.js';
 * const rate = new DuplicateRate('auto');
 * rate.wantsProbe(10); // false: no duplicates seen yet
 * for (let i = 0; i < 20; i += 1) rate.observe(3, 10);
 * rate.wantsProbe(10); // true
 * ```
 */
export class DuplicateRate {
  readonly mode: ProbeMode;
  #rate = 0;

  constructor(mode: ProbeMode) {
    this.mode = mode;
  }

  /** The running share of duplicates (0..1). */
  get rate(): number {
    return this.#rate;
  }

  /** Whether a batch of `records` records to commit should be probed first. */
  wantsProbe(records: number): boolean {
    if (records < 1 || this.mode === 'never') return false;
    if (this.mode === 'always') return true;
    // A single record gains nothing: its cancelled commit costs about what the read does.
    return records > 1 && 1 - (1 - this.#rate) ** records >= PROBE_WORTH;
  }

  /** A group commit decided `records` records, `duplicates` of them duplicates. */
  observe(duplicates: number, records: number): void {
    if (records <= 0) return;
    const kept = (1 - RECORD_WEIGHT) ** records;
    this.#rate = this.#rate * kept + (Math.min(duplicates, records) / records) * (1 - kept);
  }
}
