/**
 * Before the handler: claiming every record of the batch concurrently, one conditional write each, and sorting them
 * into owned records, later copies of a key (followers) and early outcomes (duplicates, in-progress, invalid).
 */
import { InvalidRecordError } from '../engine/errors.js';
import { acknowledged, type RecordOutcome } from '../engine/outcomes.js';
import { heldBack, type Standing } from './schedule.js';
import { prepare } from '../engine/prepare.js';
import { decideRefused, decisionOutcome } from '../engine/claim-decide.js';
import { followerOutcome } from './same-key.js';
import type { AdmittedRecord, Admitter, AdmissionSettings, ClaimAnswer, LeaderRef, ClaimInFlight } from '../strategies/types.js';
import { releaseClaim, type OwnedRecord } from '../engine/settle.js';
import { idOf } from '../engine/source.js';

type PreparedRecord<TRecord> = { readonly record: TRecord; readonly owned: OwnedRecord };

function prepareOne<TRecord>(record: TRecord, config: AdmissionSettings<TRecord>): PreparedRecord<TRecord> | AdmittedRecord<TRecord> {
  const messageId = idOf(config.source, record);
  const invalid = (error: InvalidRecordError): AdmittedRecord<TRecord> => ({
    kind: 'settled',
    record,
    outcome: { kind: 'invalid', messageId, error },
  });
  // Checked here, not by the user's key function: it is typed to receive a readable record.
  const { unreadable } = config.source.read(record);
  if (unreadable !== undefined) return invalid(unreadable);
  const prepared = prepare(record, config);
  if (prepared instanceof Error) return invalid(prepared);
  let id: string;
  try {
    id = config.store.recordId(config.consumer, prepared.key);
  } catch (error) {
    if (error instanceof InvalidRecordError) return invalid(error); // e.g. a key too long to store unhashed
    // Anything else (a store's bug, a lookup that failed) fails this record alone, retried: the claims of the records
    // before it are already on their way, and the batch must go on to settle them.
    return { kind: 'settled', record, outcome: { kind: 'failed', messageId, key: prepared.key, error } };
  }
  const payload = prepared.payloadHash === undefined ? {} : { payloadHash: prepared.payloadHash };
  return { record, owned: { id, key: prepared.key, messageId, ...payload } };
}

/** Claims one prepared record (also a FIFO copy taking over a claim released unrun, see cross-group.ts). */
export async function claimRecord(
  owned: OwnedRecord,
  config: Pick<AdmissionSettings<unknown>, 'store' | 'consumer' | 'leaseMs' | 'trace'>,
): Promise<ClaimAnswer> {
  const { key, messageId } = owned;
  try {
    // claimAndDecide without its wait and resume, which a batch never asks for.
    const claim = { ...owned, consumer: config.consumer, leaseMs: config.leaseMs };
    const send = () => config.store.claim(claim);
    const found = await (config.trace === undefined ? send() : config.trace.step(owned, 'claim', send));
    if (found.kind === 'claimed') return { kind: 'owned', owned: { ...owned, token: found.token } };
    const wording = { differs: `a different payload (message ${messageId})`, holder: 'invocation' };
    return { kind: 'settled', outcome: decisionOutcome(decideRefused({ claim, wording }, found), messageId) };
  } catch (error) {
    // Throttling, network: this record fails alone and is retried.
    return { kind: 'settled', outcome: { kind: 'failed', messageId, key, error } };
  }
}

async function claimOne<TRecord>(
  { record, owned }: PreparedRecord<TRecord>,
  config: AdmissionSettings<TRecord>,
): Promise<AdmittedRecord<TRecord>> {
  const answer: ClaimAnswer = config.claim ? await claimRecord(owned, config) : { kind: 'owned', owned };
  if (answer.kind === 'settled') return { kind: 'settled', record, id: owned.id, outcome: answer.outcome };
  const verdict = await decidePrevious(record, answer.owned, config);
  if (verdict !== undefined) return { kind: 'settled', record, id: owned.id, outcome: verdict.outcome };
  return { kind: 'owned', record, owned: answer.owned };
}

/** A cutover (the `previous` option): a record about to run is first decided from the previous library's record of it. */
function decidePrevious<TRecord>(record: TRecord, owned: OwnedRecord, config: AdmissionSettings<TRecord>) {
  const { previous, store, consumer, leaseMs } = config;
  return previous?.records.decide(record, owned, { store, consumer, leaseMs, storeResult: previous.storeResult });
}

/** A first copy held back unrun (its claim released): a FIFO copy in another group may still take the key over. */
export function releasedUnrun(outcome: RecordOutcome | undefined): boolean {
  return outcome?.kind === 'not-started' && outcome.reason === 'group-failed';
}

/**
 * Decides the followers whose first copy is already settled (found done, in progress, mismatched, failed or held
 * back), so that one that comes back holds back the rest of its FIFO group like any other settled record.
 */
function settleFollowers<TRecord>(admissions: AdmittedRecord<TRecord>[], config: AdmissionSettings<TRecord>): AdmittedRecord<TRecord>[] {
  const settled = new Map<string, RecordOutcome>();
  for (const a of admissions) if (a.kind === 'settled') settled.set(a.outcome.messageId, a.outcome);
  return admissions.map((a): AdmittedRecord<TRecord> => {
    const leader = a.kind === 'follower' ? settled.get(a.leader.messageId) : undefined;
    if (a.kind !== 'follower' || leader === undefined) return a;
    // A copy in another FIFO group than its first copy, which was held back unrun: it may take the key over in its lane.
    if (releasedUnrun(leader) && config.source.read(a.record).lane !== a.leader.lane) return a;
    return { kind: 'settled', record: a.record, id: a.owned.id, outcome: followerOutcome(a.owned, leader, a.leader.payloadHash) };
  });
}

/**
 * FIFO: once a record of a group is not acknowledged, the records after it in that group must not run before it does;
 * their claims are released. A follower still undecided is decided in its lane, after its first copy.
 */
async function holdBackBlockedGroups<TRecord>(
  admissions: AdmittedRecord<TRecord>[],
  config: AdmissionSettings<TRecord>,
): Promise<AdmittedRecord<TRecord>[]> {
  const held = heldBack(
    admissions,
    (a) => config.source.read(a.record).lane,
    (a): Standing => (a.kind !== 'settled' ? 'waits' : acknowledged(a.outcome) ? 'passes' : 'blocks'),
  );
  const releases: Promise<void>[] = [];
  const result = admissions.map((admission, i): AdmittedRecord<TRecord> => {
    if (held[i] === true && admission.kind === 'follower') return { ...admission, heldBack: true };
    if (held[i] !== true || admission.kind !== 'owned') return admission;
    releases.push(releaseClaim(config.store, admission.owned));
    const { messageId, key, id } = admission.owned;
    return { kind: 'settled', record: admission.record, id, outcome: { kind: 'not-started', messageId, key, reason: 'group-failed' } };
  });
  await Promise.all(releases);
  return result;
}

/** Prepares every record at once and starts the claims without waiting for them: each settles when its claim returns. */
export function startAdmissions<TRecord>(records: readonly TRecord[], config: AdmissionSettings<TRecord>): ClaimInFlight<TRecord>[] {
  // Two copies of one key in a batch: claim the first only (claiming both would always send the second back as "in
  // progress" and spend one of its receives). FIFO, claim strategy: a copy in another group too; it is decided in its
  // lane (groups sharing a key run as one lane), and takes the key over when the first copy was held back unrun.
  // Transactions: only within one group (each copy's commit is conditional; a held-back copy never commits).
  const leaders = new Map<string, LeaderRef>();
  return records.map((record): ClaimInFlight<TRecord> => {
    const p = prepareOne(record, config);
    if ('kind' in p) return { record, admission: Promise.resolve(p) };
    const group = config.source.read(record).lane;
    const lane = config.claim ? p.owned.id : `${p.owned.id}\u0000${group ?? ''}`;
    const leader = leaders.get(lane);
    if (leader !== undefined) {
      return { record, owned: p.owned, leader, admission: Promise.resolve({ kind: 'follower', record, owned: p.owned, leader }) };
    }
    leaders.set(lane, { messageId: p.owned.messageId, payloadHash: p.owned.payloadHash, lane: group });
    return { record, owned: p.owned, admission: claimOne(p, config) };
  });
}

/** Claims (or, for transactions, validates) every record of a batch concurrently. */
export async function admitBatch<TRecord>(
  records: readonly TRecord[],
  config: AdmissionSettings<TRecord>,
): Promise<AdmittedRecord<TRecord>[]> {
  const admissions = await Promise.all(startAdmissions(records, config).map((s) => s.admission));
  // Followers are settled again after the hold-back: a first copy held back settles its copies too.
  return settleFollowers(await holdBackBlockedGroups(settleFollowers(admissions, config), config), config);
}

/** The admission steps a strategy is handed with each batch. */
export const admission: Admitter = { batch: admitBatch, start: startAdmissions, record: claimRecord };
