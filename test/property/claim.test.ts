/**
 * Properties of what a claim means for the record already in the way
 * (src/engine/claim.ts), of the payload check that can turn a lost claim into
 * an invalid record, and of which outcomes leave the queue.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimVerdict } from '../../src/engine/claim.js';
import { BusinessConflictError, InvalidRecordError, LeaseLostError, PayloadMismatchError } from '../../src/engine/errors.js';
import { acknowledged, type RecordOutcome } from '../../src/engine/outcomes.js';
import type { IdempotencyRecord } from '../../src/engine/record.js';
import { payloadMismatch } from '../../src/engine/prepare.js';
import { followerOutcome } from '../../src/batch/same-key.js';
import { hashArb, recordAt } from './arbitraries.js';
import { seeded } from './seed.js';

const NOW = 1_800_000_000_000;
const nowArb = fc.integer({ min: NOW - 10 * 86_400_000, max: NOW + 10 * 86_400_000 });
const atNow = nowArb.chain((now) => fc.tuple(fc.constant(now), recordAt(now)));
const retained = (r: IdempotencyRecord, now: number) => r.expiresAt * 1000 > now;

describe('claimVerdict', () => {
  it('no record is free; a record past its retention is free whatever its status, lease or owner', () => {
    fc.assert(
      fc.property(atNow, ([now, r]) => {
        expect(claimVerdict(undefined, now)).toBe('free');
        if (!retained(r, now)) expect(claimVerdict(r, now)).toBe('free');
      }),
      seeded(300),
    );
  });

  it('a retained COMPLETED record is never claimable: always a duplicate', () => {
    fc.assert(
      fc.property(atNow, ([now, r]) => {
        fc.pre(r.status === 'COMPLETED' && retained(r, now));
        expect(claimVerdict(r, now)).toBe('duplicate');
      }),
      seeded(200),
    );
  });

  it('an IN_PROGRESS claim whose lease has passed (leaseUntil <= now) is always claimable; a live one never is', () => {
    fc.assert(
      fc.property(atNow, ([now, r]) => {
        fc.pre(r.status === 'IN_PROGRESS' && retained(r, now));
        const expired = r.leaseUntil !== undefined && r.leaseUntil <= now;
        expect(claimVerdict(r, now)).toBe(expired ? 'free' : 'in-progress');
      }),
      seeded(300),
    );
  });

  it('a FAILED record (release: mark-failed) is always claimable, so the retry runs', () => {
    fc.assert(
      fc.property(atNow, ([now, r]) => {
        fc.pre(r.status === 'FAILED');
        expect(claimVerdict(r, now)).toBe('free');
      }),
      seeded(100),
    );
  });

  it('owner, payload hash and attempts never change the verdict (the payload is compared apart)', () => {
    fc.assert(
      fc.property(atNow, fc.uuid(), hashArb, fc.nat(50), ([now, r], owner, payloadHash, attempts) => {
        const other = { ...r, owner, attempts, ...(payloadHash === undefined ? {} : { payloadHash }) };
        expect(claimVerdict(other, now)).toBe(claimVerdict(r, now));
      }),
      seeded(200),
    );
  });

  it('as time passes a record only ever becomes free: free stays free, a duplicate never turns in-progress', () => {
    fc.assert(
      fc.property(atNow, fc.nat(3 * 86_400_000), ([now, r], later) => {
        const before = claimVerdict(r, now);
        const after = claimVerdict(r, now + later);
        if (before === 'free') expect(after).toBe('free');
        if (before === 'duplicate') expect(after).not.toBe('in-progress');
        if (before === 'in-progress') expect(after).not.toBe('duplicate');
      }),
      seeded(300),
    );
  });
});

describe('payloadMismatch', () => {
  it('flags exactly two known, different fingerprints, and carries the key and the existing record', () => {
    fc.assert(
      fc.property(hashArb, hashArb, recordAt(NOW), fc.string(), (mine, recorded, existing, key) => {
        const error = payloadMismatch(mine, recorded, 'different payload', { key, existing });
        const differs = mine !== undefined && recorded !== undefined && mine !== recorded;
        expect(error !== undefined).toBe(differs);
        if (error === undefined) return;
        expect(error).toBeInstanceOf(PayloadMismatchError);
        expect(error).toBeInstanceOf(InvalidRecordError);
        expect(error.key).toBe(key);
        expect(error.existing).toBe(existing);
      }),
      seeded(200),
    );
  });
});

/** Every kind of outcome, each with what it needs. */
const outcomeArb: fc.Arbitrary<RecordOutcome> = fc.oneof(
  fc.constant<RecordOutcome>({ kind: 'completed', messageId: 'm', key: 'k' }),
  recordAt(NOW).map((existing): RecordOutcome => ({ kind: 'duplicate', messageId: 'm', key: 'k', existing, fromCache: false })),
  recordAt(NOW).map((existing): RecordOutcome => ({ kind: 'in-progress', messageId: 'm', key: 'k', existing })),
  fc.constant<RecordOutcome>({ kind: 'failed', messageId: 'm', key: 'k', error: new Error('boom') }),
  fc.constant<RecordOutcome>({ kind: 'invalid', messageId: 'm', error: new InvalidRecordError('bad') }),
  recordAt(NOW).map(
    (existing): RecordOutcome => ({
      kind: 'invalid',
      messageId: 'm',
      key: 'k',
      error: new PayloadMismatchError('differs', { key: 'k', existing }),
    }),
  ),
  fc.constant<RecordOutcome>({ kind: 'lease-lost', messageId: 'm', key: 'k', error: new LeaseLostError('lost') }),
  fc
    .constantFrom('deadline', 'group-failed', 'handler-threw', 'same-key-failed' as const)
    .map((reason): RecordOutcome => ({ kind: 'not-started', messageId: 'm', reason })),
  fc
    .boolean()
    .map((final): RecordOutcome => ({ kind: 'conflict', messageId: 'm', key: 'k', final, error: new BusinessConflictError('c', []) })),
);

describe('acknowledged', () => {
  it('only completed records, duplicates and final conflicts leave the queue; everything else comes back', () => {
    fc.assert(
      fc.property(outcomeArb, (o) => {
        const leaves = o.kind === 'completed' || o.kind === 'duplicate' || (o.kind === 'conflict' && o.final);
        expect(acknowledged(o)).toBe(leaves);
      }),
      seeded(200),
    );
  });

  // Changed with issue 10 (item 2): a later copy is judged against the record its first copy found in the
  // store (if any), not against the first copy's payload; with nothing recorded it just comes back.
  it('a later copy of a key never leaves the queue unless its first copy did or found the key done, and never with another payload than the recorded one', () => {
    fc.assert(
      fc.property(outcomeArb, hashArb, hashArb, (leader, leaderHash, followerHash) => {
        const follower = { messageId: 'copy', key: 'k', id: 'c#k', ...(followerHash === undefined ? {} : { payloadHash: followerHash }) };
        const outcome = followerOutcome(follower, leader, leaderHash);
        expect(outcome.messageId).toBe('copy');
        const found = foundBy(leader);
        const recordedHash = found === undefined ? leaderHash : found.payloadHash;
        const differs = recordedHash !== undefined && followerHash !== undefined && recordedHash !== followerHash;
        const foundDone = leader.kind === 'duplicate' || (leader.kind === 'invalid' && found?.status === 'COMPLETED');
        if (acknowledged(outcome)) expect(acknowledged(leader) || foundDone).toBe(true);
        if (differs && (found !== undefined || leader.kind === 'completed')) {
          expect(outcome).toMatchObject({ kind: 'invalid', error: expect.any(PayloadMismatchError) });
        }
        if (!differs && (acknowledged(leader) || foundDone)) expect(acknowledged(outcome)).toBe(true);
        // A conflict that is retried included: the same label as behind a failure, under every strategy.
        if (found === undefined && !acknowledged(leader)) expect(outcome).toMatchObject({ kind: 'not-started', reason: 'same-key-failed' });
      }),
      seeded(300),
    );
  });
});

/** The stored record a first copy found: a duplicate's, an in-progress claim's, or the one its payload did not match. */
function foundBy(leader: RecordOutcome): IdempotencyRecord | undefined {
  if (leader.kind === 'duplicate' || leader.kind === 'in-progress') return leader.existing;
  if (leader.kind === 'invalid' && leader.error instanceof PayloadMismatchError) return leader.error.existing;
  return undefined;
}
