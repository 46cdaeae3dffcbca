/**
 * The report of a local run: what was sent and delivered, what the
 * middleware decided, what the effects are, and the invariants that must
 * hold. `ok` is false when any invariant is broken; `npm start` then exits
 * non-zero.
 */
import { outcomeMetricNames } from '../../src/observe/emf.js';
import type { RecordOutcomeKind } from '../../src/engine/outcomes.js';
import type { RequestCounts } from './ddb-metrics.js';
import type { DlqEntry } from './dlq.js';
import type { OutcomeTotals } from './log-collector.js';
import type { MetricTotals } from './metrics-collector.js';
import type { WorkloadOptions } from './options.js';
import type { SendStats } from './producer.js';
import type { SourceStats } from './stats.js';
import type { NotificationEffects, OrderEffects, OutboxEffects, PointsEffects } from './verify.js';

/** One invariant and whether it held. */
export interface Invariant {
  readonly name: string;
  readonly ok: boolean;
  /** Figures behind the verdict, or the first offending keys. */
  readonly detail: string;
}

export interface LocalRunReport {
  readonly ok: boolean;
  readonly options: WorkloadOptions;
  readonly timing: { readonly setupMs: number; readonly runMs: number; readonly totalMs: number };
  readonly sent: SendStats & { readonly orderPaidPublished: number; readonly orderPaidRepublished: number };
  readonly sources: Readonly<Record<'payments' | 'notifications' | 'points', SourceStats>>;
  /** Middleware outcomes per consumer, summed from its log lines. */
  readonly outcomes: OutcomeTotals;
  /** The EMF metrics the handlers emitted (what CloudWatch would chart), summed per consumer. */
  readonly metrics: MetricTotals;
  readonly duplicatesAcknowledged: number;
  /** Records given a backoff (visibility from their receive count), per consumer, summed from its log lines. */
  readonly backedOff: Readonly<Record<string, number>>;
  readonly faultsInjected: Readonly<Record<'publish' | 'send' | 'points', number>>;
  readonly dlq: Readonly<Record<'payments' | 'notifications' | 'points', readonly DlqEntry[]>>;
  readonly effects: {
    readonly orders: OrderEffects;
    readonly points: PointsEffects;
    readonly notifications: NotificationEffects;
    readonly outbox: OutboxEffects;
  };
  readonly dynamodb: RequestCounts & { readonly perDelivery: number };
  readonly throughput: { readonly deliveries: number; readonly deliveriesPerSecond: number };
  /** Queues not empty at the end (should be none). */
  readonly leftInQueues: Readonly<Record<string, number>>;
  /** Poison messages the workload sent to each SQS queue (each must end in its DLQ). */
  readonly poisonPlanned: Readonly<Record<'payments' | 'notifications', number>>;
  readonly invariants: readonly Invariant[];
  readonly logFile: string;
}

const first = (keys: readonly string[]): string =>
  keys.length === 0 ? '' : `: ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}`;

function inv(name: string, ok: boolean, detail: string): Invariant {
  return { name, ok, detail };
}

type Parts = Omit<LocalRunReport, 'ok' | 'invariants'>;

function effectInvariants({ effects: e }: Parts): Invariant[] {
  const { orders: o, points: p, notifications: n } = e;
  return [
    inv(
      'every order paid exactly once',
      o.paid === o.expected && o.paidMoreThanOnce.length === 0 && o.transitionsApplied === o.expected,
      `${o.paid}/${o.expected} PAID, ${o.transitionsApplied} transitions applied${first([...o.neverPaid, ...o.paidMoreThanOnce])}`,
    ),
    inv('poison orders left unpaid', o.wronglyPaid.length === 0, `${o.wronglyPaid.length} wrongly paid${first(o.wronglyPaid)}`),
    inv(
      'points awarded once per paid order',
      p.ledgerItems === o.paid && p.ordersWithoutPoints.length === 0 && p.unexpectedLedger.length === 0 && p.wrongPoints.length === 0,
      `${p.ledgerItems} ledger items for ${o.paid} paid orders` +
        first([...p.ordersWithoutPoints, ...p.unexpectedLedger, ...p.wrongPoints]),
    ),
    inv(
      'customer balances = sum of ledger',
      p.balanceMismatches.length === 0,
      `${p.customers} customers, ${p.balanceMismatches.length} mismatches${first(p.balanceMismatches)}`,
    ),
    inv(
      'every notification sent exactly once',
      n.neverSent.length === 0 && n.sentMoreThanOnce.length === 0,
      `${n.sent} sends for ${n.expected} notifications${first([...n.neverSent, ...n.sentMoreThanOnce])}`,
    ),
  ];
}

/**
 * Poison messages found in DLQs, each counted once: a message delivered
 * twice (a redelivery while the first batch still ran, a lost
 * acknowledgement) is sent to the DLQ as permanent once per delivery. The
 * copies name the same source message (`eo-message-id`): noise, not a loss.
 */
export function distinctPoison(entries: readonly DlqEntry[]): number {
  return new Set(entries.filter((d) => d.defect !== undefined).map((d) => d.sourceMessageId ?? d.messageId)).size;
}

/** The outbox: no PAID order without its event, none without its one effect in points. */
function outboxInvariants({ effects: { outbox: x } }: Parts): Invariant[] {
  return [
    inv(
      'every PAID order has exactly one OrderPaid effect in points',
      x.paidWithoutOneEffect.length === 0 && x.paidWithoutOneEvent.length === 0,
      `${x.paid} PAID, ${x.outboxItems} outbox events, ${x.paidWithoutOneEvent.length} without exactly one event, ` +
        `${x.paidWithoutOneEffect.length} without exactly one effect${first([...x.paidWithoutOneEvent, ...x.paidWithoutOneEffect])}`,
    ),
    inv(
      'every outbox event published',
      x.unpublished.length === 0 && x.givenUp === 0,
      `${x.outboxItems - x.unpublished.length}/${x.outboxItems} published in ${x.relayInvocations} relay invocations, ` +
        `${x.givenUp} stream records given up${first(x.unpublished)}`,
    ),
  ];
}

function queueInvariants(parts: Parts): Invariant[] {
  const valid = [...parts.dlq.payments, ...parts.dlq.notifications].filter((d) => d.defect === undefined);
  const poisonFound = distinctPoison([...parts.dlq.payments, ...parts.dlq.notifications]);
  const planned = parts.poisonPlanned.payments + parts.poisonPlanned.notifications;
  const left = Object.entries(parts.leftInQueues).filter(([, n]) => n > 0);
  return [
    inv(
      'no valid message in a DLQ',
      valid.length === 0,
      `${valid.length} valid (${valid.filter((d) => d.effectApplied !== true).length} with the effect missing)` +
        first(valid.map((d) => d.body)),
    ),
    inv('every poison message in its DLQ', poisonFound === planned, `${poisonFound}/${planned}`),
    inv('no OrderPaid event given up', parts.dlq.points.length === 0, `${parts.dlq.points.length} in the on-failure destination`),
    inv('nothing left in the queues', left.length === 0, left.length === 0 ? 'all drained' : left.map(([q, n]) => `${q}: ${n}`).join(', ')),
    duplicatesInvariant(parts),
  ];
}

/**
 * Every copy the producers re-sent (a second delivery of a business event)
 * must end acknowledged as a duplicate by its consumer's idempotency record.
 * The effect checks alone cannot see a broken record: `transition()` and the
 * points ledger's own condition would still keep the effects single.
 */
function duplicatesInvariant(parts: Parts): Invariant {
  const planned = {
    payments: parts.sent.sent.payments.resend,
    notifications: parts.sent.sent.notifications.resend,
    points: parts.sent.orderPaidRepublished,
  };
  const rows = Object.entries(planned).map(([consumer, resent]) => {
    const acknowledged = parts.outcomes[consumer]?.duplicate ?? 0;
    return { consumer, resent, acknowledged, ok: acknowledged >= resent };
  });
  return inv(
    're-sent copies acknowledged as duplicates',
    rows.every((r) => r.ok),
    rows.map((r) => `${r.consumer} ${r.acknowledged}/${r.resent}`).join(', '),
  );
}

/**
 * The EMF metrics (what CloudWatch charts and alarms on) must count what the
 * log lines say, per consumer and outcome: a consumer missing from the
 * metrics, or a count that differs, means a dashboard would mislead.
 */
function metricsInvariant(parts: Parts): Invariant {
  const wrong = Object.entries(parts.outcomes).flatMap(([consumer, counts]) =>
    (Object.keys(outcomeMetricNames) as RecordOutcomeKind[]).flatMap((kind) => {
      const logged = counts[kind] ?? 0;
      const counted = parts.metrics[consumer]?.[outcomeMetricNames[kind]] ?? 0;
      return logged === counted ? [] : [`${consumer} ${kind}: ${counted} in metrics, ${logged} logged`];
    }),
  );
  const docs = Object.values(parts.metrics).reduce((n, m) => n + (m.Documents ?? 0), 0);
  return inv('EMF metrics match the logged outcomes', wrong.length === 0, `${docs} EMF documents${first(wrong)}`);
}

/** Adds the invariants and the verdict. */
export function finishReport(parts: Parts): LocalRunReport {
  const invariants = [...effectInvariants(parts), ...outboxInvariants(parts), ...queueInvariants(parts), metricsInvariant(parts)];
  return { ok: invariants.every((i) => i.ok), ...parts, invariants };
}
