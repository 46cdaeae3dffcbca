/**
 * Group commit's duplicate probe, as pure rules: when a batch is worth one consistent read of its idempotency records
 * before the commit, and what a record found means for the commit. A hint only: it answers a duplicate exactly where
 * the commit's refused idempotency Put would have; whether an effect may run stays the conditional Put's call.
 */
import { MAX_TRANSACTION_ACTIONS } from '../../../engine/size.js';
import { meanSlowestSingleMs, meanTransactMs } from './latency-table.js';

/**
 * When group commit reads the batch's idempotency records before committing: `'auto'` when this container's recent
 * records were duplicates often enough to pay for the read, `'always'`, or `'never'`.
 */
export type ProbeMode = 'auto' | 'always' | 'never';

/**
 * The chance that a batch holds a duplicate at which the probe starts to pay, for `records` records of about
 * `itemsPerRecord` transaction items each (idempotency record included). Latency decides, on DynamoDB as a Lambda
 * function sees it (latency-table.ts, precomputed from the bench's AWS model):
 * - the probe costs every batch one `BatchGetItem`, the slowest of `records` single-item reads (12.8 ms for 10);
 * - in a batch that holds a duplicate, it saves the cancelled transaction of the batch's items (34.4 ms for 20 items):
 *   the rest is sent at once instead of after the cancellation.
 * So the probe pays from the ratio of the two means: 0.37 for 10 records of 2 items (about a 4.5 % duplicate rate per
 * record); a single record too (a duplicate's read replaces its refused commit: 0.27). Units would decide sooner (a
 * cancelled transaction bills 2 WRU per item, the read 1 RRU per key), and handlers waiting on I/O hide the read;
 * neither is counted, so the rule errs towards not reading.
 */
export function probeWorth(records: number, itemsPerRecord: number): number {
  const items = Math.min(MAX_TRANSACTION_ACTIONS, Math.max(1, Math.round(records * itemsPerRecord)));
  return meanSlowestSingleMs(records) / meanTransactMs(items);
}

/** Before any commit was seen: the idempotency record and one business write. */
const DEFAULT_ITEMS_PER_RECORD = 2;

/** Weight of one record in the running duplicate rate: a half-life of about 140 records. */
const RECORD_WEIGHT = 0.005;

/**
 * A container's recent duplicate rate (among the records its group commits
 * decided), their transactions' items per record, and the probe decision
 * they lead to. Starts at 0: a fresh container probes only after it has met
 * duplicates.
 */
export class DuplicateRate {
  #rate = 0;
  #itemsPerRecord = DEFAULT_ITEMS_PER_RECORD;

  constructor(readonly mode: ProbeMode) {}

  /** The running share of duplicates (0..1). */
  get rate(): number {
    return this.#rate;
  }

  /** The running mean of transaction items per committed record (idempotency record included). */
  get itemsPerRecord(): number {
    return this.#itemsPerRecord;
  }

  /** Whether a batch of `records` records to commit should be probed first. */
  wantsProbe(records: number): boolean {
    if (records < 1 || this.mode === 'never') return false;
    if (this.mode === 'always') return true;
    // Whole items, as a commit has them.
    const worth = probeWorth(records, Math.round(records * this.#itemsPerRecord) / records);
    return 1 - (1 - this.#rate) ** records >= worth;
  }

  /**
   * A group commit decided `records` records, `duplicates` of them
   * duplicates; the transactions of the others held `items` items in all
   * (omitted: the items per record stay as they were).
   */
  observe(duplicates: number, records: number, items?: number): void {
    if (records <= 0) return;
    const dups = Math.min(duplicates, records);
    const kept = (1 - RECORD_WEIGHT) ** records;
    this.#rate = this.#rate * kept + (dups / records) * (1 - kept);
    const sent = records - dups;
    if (items === undefined || sent <= 0 || items < sent) return;
    const keptItems = (1 - RECORD_WEIGHT) ** sent;
    this.#itemsPerRecord = this.#itemsPerRecord * keptItems + (items / sent) * (1 - keptItems);
  }
}
