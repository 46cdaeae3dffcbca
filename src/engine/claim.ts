/**
 * What a claim means for the record already stored under its key. DynamoDB decides it as a condition expression
 * (`claimable` in stores/dynamodb/expressions.ts); this is the same rule as a pure function, so the store reads a
 * refused claim's record the way DynamoDB judged it, and the rule can be checked on its own.
 */
import { payloadsDiffer } from './hashing.js';
import { leaseExpired, retentionExpired } from './lease.js';
import type { IdempotencyRecord } from './record.js';

/**
 * - `free`: nobody holds the key; a claim takes it.
 * - `duplicate`: the key is COMPLETED within its retention; acknowledge without running.
 * - `in-progress`: a live claim holds it; retry later, never acknowledge.
 */
export type ClaimVerdict = 'free' | 'duplicate' | 'in-progress';

/**
 * The verdict on `existing` at `now` (epoch ms), for every caller that judges a stored record: free when there is no
 * record, its retention has passed (TTL deletes lazily), it is FAILED, or its lease has passed (`leaseExpired`). Owner,
 * payload hash and attempts play no part: the payload is compared separately.
 */
export function claimVerdict(existing: IdempotencyRecord | undefined, now: number): ClaimVerdict {
  if (existing === undefined || retentionExpired(existing.expiresAt, now)) return 'free';
  switch (existing.status) {
    case 'COMPLETED':
      return 'duplicate';
    case 'FAILED':
      return 'free';
    case 'IN_PROGRESS':
      return leaseExpired(existing.leaseUntil, now) ? 'free' : 'in-progress';
  }
}

/**
 * - `duplicate`: answer the record as a duplicate now, without committing it;
 * - `blocked`: the commit will most likely be refused (a live claim, another payload): commit it alone, so that it
 *   cancels no other record;
 * - `free`: commit it with the others.
 */
export type ProbeVerdict = 'duplicate' | 'blocked' | 'free';

/** What a record found by the probe means for a commit at `now` that carries `payloadHash`. */
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
