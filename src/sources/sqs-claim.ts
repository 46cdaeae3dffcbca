/**
 * Before the handler: claiming every record of the batch concurrently, one
 * conditional write each, and sorting them into owned records and early
 * outcomes (duplicates, in-progress, invalid).
 */
import type { SQSRecord } from 'aws-lambda';
import { PayloadMismatchError } from '../core/errors.js';
import { acknowledged, type RecordOutcome } from '../core/outcomes.js';
import type { IdempotencyRecord } from '../core/record.js';
import type { IdempotencyStore } from '../store/types.js';
import { isFifo } from './batch-runner.js';
import { prepare, type Extractors, type Prepared } from './prepare.js';
import { releaseClaim, type OwnedRecord } from './sqs-settle.js';

/** One record's state after the before phase. */
export type Admission =
  | { readonly kind: 'owned'; readonly record: SQSRecord; readonly owned: OwnedRecord }
  | { readonly kind: 'settled'; readonly record: SQSRecord; readonly outcome: RecordOutcome; readonly id?: string };

/** What the before phase needs. */
export interface AdmitConfig extends Extractors<SQSRecord> {
  readonly store: IdempotencyStore;
  readonly consumer: string;
  readonly claim: boolean;
  readonly leaseMs: number;
}

function mismatch(prepared: Prepared, existing: IdempotencyRecord): boolean {
  return (
    prepared.payloadHash !== undefined &&
    existing.payloadHash !== undefined &&
    prepared.payloadHash !== existing.payloadHash
  );
}

async function admitOne(record: SQSRecord, config: AdmitConfig): Promise<Admission> {
  const messageId = record.messageId;
  const prepared = prepare(record, config);
  if (prepared instanceof Error) return { kind: 'settled', record, outcome: { kind: 'invalid', messageId, error: prepared } };
  const { key } = prepared;
  const id = config.store.recordId(config.consumer, key);
  const base = { id, key, messageId, ...(prepared.payloadHash === undefined ? {} : { payloadHash: prepared.payloadHash }) };
  if (!config.claim) return { kind: 'owned', record, owned: base };
  try {
    const claim = await config.store.claim({ ...base, consumer: config.consumer, leaseMs: config.leaseMs });
    if (claim.kind === 'claimed') return { kind: 'owned', record, owned: { ...base, token: claim.token } };
    const existing = claim.existing;
    if (mismatch(prepared, existing)) {
      const error = new PayloadMismatchError(
        `Key already recorded under ${id} with a different payload (message ${messageId}).`,
        { key, existing },
      );
      return { kind: 'settled', record, id, outcome: { kind: 'invalid', messageId, key, error } };
    }
    const outcome: RecordOutcome =
      claim.kind === 'completed'
        ? { kind: 'duplicate', messageId, key, existing, fromCache: claim.fromCache }
        : { kind: 'in-progress', messageId, key, existing };
    return { kind: 'settled', record, id, outcome };
  } catch (error) {
    // Throttling, network: this record fails alone and is retried.
    return { kind: 'settled', record, id, outcome: { kind: 'failed', messageId, key, error } };
  }
}

/**
 * FIFO: once a record of a group is not acknowledged, the records after it in
 * that group must not run before it does; their claims are released.
 */
async function holdBackBlockedGroups(admissions: Admission[], store: IdempotencyStore): Promise<Admission[]> {
  const blocked = new Set<string>();
  const releases: Promise<void>[] = [];
  const result = admissions.map((admission): Admission => {
    const { record } = admission;
    if (!isFifo(record)) return admission;
    const group = record.attributes?.MessageGroupId ?? '';
    if (admission.kind === 'settled') {
      if (!acknowledged(admission.outcome)) blocked.add(group);
      return admission;
    }
    if (!blocked.has(group)) return admission;
    releases.push(releaseClaim(store, admission.owned));
    const { messageId, key, id } = admission.owned;
    return { kind: 'settled', record, id, outcome: { kind: 'not-started', messageId, key, reason: 'group-failed' } };
  });
  await Promise.all(releases);
  return result;
}

/** Claims (or, for transactions, validates) every record of a batch concurrently. */
export async function admitBatch(records: readonly SQSRecord[], config: AdmitConfig): Promise<Admission[]> {
  const admissions = await Promise.all(records.map((record) => admitOne(record, config)));
  return holdBackBlockedGroups(admissions, config.store);
}
