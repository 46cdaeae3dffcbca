/**
 * The chaos run's verdict, per strategy, from the end state only (tables,
 * side-effect counters, queues, DLQs) and what the hooks saw:
 * - no loss: every valid business event took effect, or sits in a DLQ with a reason;
 * - transaction and state-machine strategies: zero double effects;
 * - claim strategy: double effects only inside its documented window (a crash
 *   or a kill after the effect, or a failed completion), counted, never silent;
 * - no record acknowledged while its effect is missing;
 * - no batch failed as a whole because of one record (SQS consumers).
 */
import type { DlqEntry } from '../local/dlq.js';
import { distinctPoison, type LocalRunReport } from '../local/report.js';
import type { ChaosObservations } from './harness.js';
import { documentedWindow, type UnconfirmedCause } from './trace.js';

/** One invariant of one strategy. */
export interface ChaosInvariant {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Figures and verdicts for one strategy (one consumer of the reference service). */
export interface StrategyRow {
  readonly strategy: 'state machine' | 'transaction' | 'claim' | 'transaction, group commit' | 'outbox';
  readonly consumer: string;
  /** Unique valid business events this consumer had to apply. */
  readonly events: number;
  readonly applied: number;
  /** Valid events not applied but in a DLQ / on-failure destination, with a reason. */
  readonly deadLettered: number;
  /** Valid events neither applied nor dead-lettered. */
  readonly lost: number;
  /** The dead-lettered valid events: key, the reason logged last, receives. */
  readonly deadLetters: ReadonlyArray<{ readonly key: string; readonly reason: string; readonly receiveCount: number }>;
  /** Effects applied more than once (or applied where they must not be). */
  readonly doubleEffects: number;
  /** Of those, inside the claim strategy's documented window (always 0 for the others). */
  readonly doublesInWindow: number;
  readonly ackedWithoutEffect: number;
  /** Invocations that threw or answered with an invalid batch response (SQS only). */
  readonly wholeBatchFailures: number | undefined;
  /** Messages or events still waiting when the run ended. */
  readonly leftOver: number;
  readonly invariants: readonly ChaosInvariant[];
  readonly ok: boolean;
}

const first = (keys: Iterable<string>): string => {
  const list = [...keys];
  return list.length === 0 ? '' : ` (${list.slice(0, 4).join(', ')}${list.length > 4 ? ', ...' : ''})`;
};

function split(missing: readonly string[], dlq: readonly DlqEntry[]) {
  const parked = new Set(dlq.filter((d) => d.defect === undefined && d.key !== undefined).map((d) => d.key as string));
  // One entry per key: the original and a re-sent copy can both run out of receives.
  const deadLettered = [
    ...new Map(
      dlq.filter((d) => d.defect === undefined && d.key !== undefined && missing.includes(d.key)).map((d) => [d.key, d] as const),
    ).values(),
  ];
  const lost = missing.filter((k) => !parked.has(k));
  const unreasoned = dlq.filter((d) => d.defect === undefined && d.reason.trim() === '');
  return { deadLettered, lost, unreasoned };
}

function leftOver(report: LocalRunReport, match: string): number {
  return Object.entries(report.leftInQueues)
    .filter(([name]) => name.includes(match))
    .reduce((sum, [, n]) => sum + n, 0);
}

/** What one strategy's row is computed from (see {@link strategyRow}). */
export interface RowInput {
  readonly strategy: StrategyRow['strategy'];
  readonly consumer: string;
  readonly events: number;
  readonly missing: readonly string[];
  readonly dlq: readonly DlqEntry[];
  readonly doubles: number;
  readonly doublesInWindow: number;
  readonly doubleDetail: string;
  readonly acked: ReadonlySet<string>;
  readonly wholeBatchFailures: number | undefined;
  readonly leftOver: number;
  readonly poison?: { readonly found: number; readonly planned: number };
}

/** One strategy's row: the figures and the invariants, from what was applied, dead-lettered and acknowledged. */
export function strategyRow(input: RowInput): StrategyRow {
  const { deadLettered, lost, unreasoned } = split(input.missing, input.dlq);
  const ackedMissing = input.missing.filter((k) => input.acked.has(k));
  const poisonOk = input.poison === undefined || input.poison.found === input.poison.planned;
  const invariants: ChaosInvariant[] = [
    {
      name: 'no loss',
      ok: lost.length === 0 && unreasoned.length === 0 && poisonOk && input.leftOver === 0,
      detail:
        `${input.events - input.missing.length}/${input.events} applied, ${deadLettered.length} dead-lettered with a reason, ${lost.length} lost${first(lost)}` +
        (input.poison === undefined ? '' : `; poison in DLQ ${input.poison.found}/${input.poison.planned}`) +
        (input.leftOver === 0 ? '' : `; ${input.leftOver} still queued`),
    },
    input.strategy === 'claim'
      ? {
          name: 'double effects only in the documented window',
          ok: input.doubles === input.doublesInWindow,
          detail: `${input.doubles} double effects, ${input.doublesInWindow} after a crash/kill/failed completion following the effect${input.doubleDetail}`,
        }
      : { name: 'zero double effects', ok: input.doubles === 0, detail: `${input.doubles}${input.doubleDetail}` },
    { name: 'no ack while the effect is missing', ok: ackedMissing.length === 0, detail: `${ackedMissing.length}${first(ackedMissing)}` },
  ];
  if (input.wholeBatchFailures !== undefined) {
    invariants.push({
      name: 'no batch failed as a whole',
      ok: input.wholeBatchFailures === 0,
      detail: `${input.wholeBatchFailures} invocations threw or returned an invalid batch response`,
    });
  }
  return {
    strategy: input.strategy,
    consumer: input.consumer,
    events: input.events,
    applied: input.events - input.missing.length,
    // Events, not DLQ messages: `split` keeps one entry per key.
    deadLettered: deadLettered.length,
    lost: lost.length,
    deadLetters: deadLettered.map((d) => ({ key: d.key as string, reason: d.reason, receiveCount: d.receiveCount })),
    doubleEffects: input.doubles,
    doublesInWindow: input.doublesInWindow,
    ackedWithoutEffect: ackedMissing.length,
    wholeBatchFailures: input.wholeBatchFailures,
    leftOver: input.leftOver,
    invariants,
    ok: invariants.every((i) => i.ok),
  };
}

function poisonCount(entries: readonly DlqEntry[]): number {
  return distinctPoison(entries);
}

/** Claim strategy: each send beyond the first must follow an effect whose completion is missing for a documented reason. */
function claimDoubles(observations: ChaosObservations) {
  const sends = new Map<string, number>();
  for (const trace of observations.traces.all.filter((t) => t.consumer === 'notifications')) {
    for (const id of trace.effects) sends.set(id, (sends.get(id) ?? 0) + 1);
  }
  const unconfirmed = observations.traces.unconfirmed('notifications');
  const causes = new Map<UnconfirmedCause, number>();
  let doubles = 0;
  let inWindow = 0;
  for (const [id, count] of sends) {
    if (count < 2) continue;
    const extra = count - 1;
    const reasons = unconfirmed.get(id) ?? [];
    for (const r of reasons) causes.set(r, (causes.get(r) ?? 0) + 1);
    doubles += extra;
    inWindow += Math.min(extra, reasons.filter((r) => documentedWindow.has(r)).length);
  }
  const detail = causes.size === 0 ? '' : `; unconfirmed effects by cause: ${[...causes].map(([c, n]) => `${c} ${n}`).join(', ')}`;
  return { doubles, inWindow, detail };
}

/**
 * The outbox row: every PAID order has exactly one OrderPaid effect in
 * points. Its events are the PAID orders; one is dead-lettered when the
 * relay's mapping gave up on its stream record. "Dead-lettered after its
 * transition, with no event" is counted on its own: the outbox makes it
 * impossible (PAID and the event commit together), and this shows it.
 */
function outboxRow(report: LocalRunReport): StrategyRow {
  const x = report.effects.outbox;
  const noEvent = new Set(x.paidWithoutOneEvent);
  const parkedPayments = report.dlq.payments.filter((d) => d.defect === undefined && d.key !== undefined);
  const afterTransitionNoEvent = parkedPayments.filter((d) => noEvent.has(d.key as string)).map((d) => d.key as string);
  const missing = [...new Set([...x.paidWithoutOneEffect, ...x.paidWithoutOneEvent])];
  const invariants: ChaosInvariant[] = [
    {
      name: 'every PAID order has exactly one OrderPaid effect in points',
      ok: missing.length === 0,
      detail: `${x.paid - missing.length}/${x.paid} PAID orders, ${x.paidWithoutOneEvent.length} without exactly one event${first(missing)}`,
    },
    {
      name: 'no payment dead-lettered after its transition without its event',
      ok: afterTransitionNoEvent.length === 0,
      detail: `${afterTransitionNoEvent.length} of ${parkedPayments.length} valid payments in the DLQ${first(afterTransitionNoEvent)}`,
    },
    {
      name: 'every outbox event published',
      ok: x.unpublished.length === 0 && x.givenUp === 0,
      detail: `${x.outboxItems - x.unpublished.length}/${x.outboxItems} in ${x.relayInvocations} relay invocations, ${x.givenUp} stream records given up`,
    },
  ];
  return {
    strategy: 'outbox',
    consumer: 'outbox-relay (orders stream -> PutEvents, at least once; points dedups)',
    events: x.paid,
    applied: x.paid - missing.length,
    deadLettered: x.givenUp,
    // Those the relay gave up on are parked (on-failure queue), with the mapping's reason.
    lost: Math.max(0, missing.length - x.givenUp),
    deadLetters: [],
    doubleEffects: 0,
    doublesInWindow: 0,
    ackedWithoutEffect: 0,
    wholeBatchFailures: undefined,
    leftOver: x.unpublished.length,
    invariants,
    ok: invariants.every((i) => i.ok),
  };
}

/** The strategy rows of one run, and the outbox's. */
export function strategyRows(report: LocalRunReport, observations: ChaosObservations): StrategyRow[] {
  const { orders: o, points: p, notifications: n } = report.effects;
  const { sources, dlq, poisonPlanned } = report;
  const neverPaid = new Set(o.neverPaid);
  const pointsMissing = p.ordersWithoutPoints.filter((k) => !neverPaid.has(k));
  const claim = claimDoubles(observations);
  return [
    strategyRow({
      strategy: 'state machine',
      consumer: 'payments (SQS FIFO, PENDING->PAID transition + outbox item in one transaction)',
      events: o.expected,
      missing: o.neverPaid,
      dlq: dlq.payments,
      doubles: o.paidMoreThanOnce.length + o.wronglyPaid.length,
      doublesInWindow: 0,
      doubleDetail: o.wronglyPaid.length === 0 ? first(o.paidMoreThanOnce) : `; poison orders paid${first(o.wronglyPaid)}`,
      acked: observations.acknowledged.payments,
      wholeBatchFailures: sources.payments.handlerErrors + sources.payments.invalidResponses,
      leftOver: leftOver(report, 'payment'),
      poison: { found: poisonCount(dlq.payments), planned: poisonPlanned.payments },
    }),
    strategyRow({
      strategy: 'transaction',
      consumer: 'points (EventBridge async, ledger + balance in one transaction)',
      events: o.paid,
      missing: pointsMissing,
      // Not parked upstream: a PAID order's event is in the outbox, whatever became of its payment.
      dlq: dlq.points,
      doubles: p.balanceMismatches.length + p.unexpectedLedger.length + p.wrongPoints.length,
      doublesInWindow: 0,
      doubleDetail: first([...p.balanceMismatches, ...p.unexpectedLedger, ...p.wrongPoints]),
      acked: observations.acknowledged.points,
      wholeBatchFailures: undefined,
      leftOver: leftOver(report, 'points'),
    }),
    strategyRow({
      strategy: 'claim',
      consumer: 'notifications (SQS standard, claim record)',
      events: n.expected,
      missing: n.neverSent,
      dlq: dlq.notifications,
      doubles: claim.doubles,
      doublesInWindow: claim.inWindow,
      doubleDetail: claim.detail,
      acked: observations.acknowledged.notifications,
      wholeBatchFailures: sources.notifications.handlerErrors + sources.notifications.invalidResponses,
      leftOver: leftOver(report, 'notification'),
      poison: { found: poisonCount(dlq.notifications), planned: poisonPlanned.notifications },
    }),
    outboxRow(report),
  ];
}
