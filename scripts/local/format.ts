/**
 * The report as readable text tables for the terminal.
 */
import type { RecordOutcomeKind } from '../../src/engine/outcomes.js';
import type { DlqEntry } from './dlq.js';
import { RELAY_SOURCE, type MetricTotals } from './metrics-collector.js';
import type { LocalRunReport } from './report.js';

export type Cell = string | number;

/** Rows as aligned text columns: the first left-aligned, the rest right-aligned. */
export function table(header: readonly Cell[], rows: ReadonlyArray<readonly Cell[]>): string[] {
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, c) => Math.max(...all.map((r) => (r[c] ?? '').length)));
  return all.map((r) =>
    r
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function traffic(r: LocalRunReport): string[] {
  const { sent, sources: s } = r;
  const outcome = (consumer: string, kind: RecordOutcomeKind) => r.outcomes[consumer]?.[kind] ?? 0;
  const perConsumer = (kind: RecordOutcomeKind) => [outcome('payments', kind), outcome('notifications', kind), outcome('points', kind)];
  const p = sent.sent.payments;
  const n = sent.sent.notifications;
  return table(
    ['Traffic', 'payments', 'notifications', 'points (async)'],
    [
      ['sent: originals', p.original, n.original, sent.orderPaidPublished - sent.orderPaidRepublished],
      ['sent: re-sent under a new id', p.resend, n.resend, sent.orderPaidRepublished],
      ['sent: same FIFO dedup id (dropped by SQS)', p['fifo-dedup-resend'], '-', '-'],
      ['sent: poison', p.poison, n.poison, '-'],
      ['delivered (receives / attempts)', s.payments.delivered, s.notifications.delivered, s.points.delivered],
      ['acknowledged (deleted / succeeded)', s.payments.acknowledged, s.notifications.acknowledged, s.points.acknowledged],
      ['  processed: handler ran, effect applied', ...perConsumer('completed')],
      ['  duplicates: acknowledged, handler skipped', ...perConsumer('duplicate')],
      ['  sent to the DLQ as permanent, acknowledged', ...perConsumer('dead-lettered')],
      ['retried (left for redelivery)', s.payments.retried, s.notifications.retried, s.points.retried],
      ['  backed off (visibility from receive count)', ...['payments', 'notifications', 'points'].map((c) => r.backedOff[c] ?? 0)],
      ['invocations', s.payments.invocations, s.notifications.invocations, s.points.invocations],
      [
        '  of which threw / timed out',
        `${s.payments.handlerErrors} / ${s.payments.timeouts}`,
        `${s.notifications.handlerErrors} / ${s.notifications.timeouts}`,
        `${s.points.handlerErrors} / ${s.points.timeouts}`,
      ],
      ['lost ACKs (crash before delete)', s.payments.lostAcks, s.notifications.lostAcks, '-'],
      ['deleted after the visibility timeout', s.payments.lateDeletes, s.notifications.lateDeletes, '-'],
    ],
  );
}

const KINDS: readonly RecordOutcomeKind[] = [
  'completed',
  'duplicate',
  'in-progress',
  'failed',
  'invalid',
  'not-started',
  'conflict',
  'lease-lost',
  'dead-lettered',
];

function outcomes(r: LocalRunReport): string[] {
  const rows = ['payments', 'notifications', 'points'].map((c) => [c, ...KINDS.map((k) => r.outcomes[c]?.[k] ?? 0)]);
  return table(['Middleware outcomes', ...KINDS], rows);
}

/** Metric columns of the EMF table: the metric, and its short header. */
const METRIC_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['Records', 'records'],
  ['RecordsCompleted', 'completed'],
  ['RecordsDuplicate', 'duplicate'],
  ['RecordsInProgress', 'in-progress'],
  ['RecordsFailed', 'failed'],
  ['RecordsInvalid', 'invalid'],
  ['RecordsLeaseLost', 'lease-lost'],
  ['RecordsNotStarted', 'not-started'],
  ['RecordsConflict', 'conflict'],
  ['RecordsDeadLettered', 'dead-lettered'],
  ['RecordsRetried', 'retried'],
  ['Replays', 'replays'],
];

/**
 * The EMF metrics per consumer (namespace EffectivelyOnce), with the duplicate rate the docs' alarm computes, and
 * the outbox relay's on a line of their own.
 */
export function metricsTable(totals: MetricTotals, title = 'EMF metrics (sums)'): string[] {
  const rows = Object.keys(totals)
    .filter((consumer) => consumer !== RELAY_SOURCE)
    .sort()
    .map((consumer) => {
      const m = totals[consumer] ?? {};
      const rate = (m.Records ?? 0) === 0 ? '-' : `${((100 * (m.RecordsDuplicate ?? 0)) / (m.Records ?? 1)).toFixed(1)}%`;
      return [consumer, m.Documents ?? 0, ...METRIC_COLUMNS.map(([name]) => m[name] ?? 0), rate, Math.round(m.DurationMax ?? 0)];
    });
  const relay = totals[RELAY_SOURCE];
  const relayLine =
    relay === undefined
      ? []
      : [
          `outbox relay: ${relay.Documents ?? 0} docs, published ${relay.OutboxPublished ?? 0}, refused ${relay.OutboxRefused ?? 0}, ` +
            `malformed ${relay.OutboxMalformed ?? 0}, mark failed ${relay.OutboxMarkFailed ?? 0}`,
        ];
  return [...table([title, 'docs', ...METRIC_COLUMNS.map(([, h]) => h), 'dup rate', 'max ms'], rows), ...relayLine];
}

function effects(r: LocalRunReport): string[] {
  const { orders: o, points: p, notifications: n } = r.effects;
  return table(
    ['Effects vs unique business events', 'applied', 'expected'],
    [
      ['orders PAID', o.paid, o.expected],
      ['  PENDING->PAID transitions applied', o.transitionsApplied, o.expected],
      ['points ledger items (one per paid order)', p.ledgerItems, o.paid],
      [`customer balances = sum of ledger (${p.customers} customers)`, p.customers - p.balanceMismatches.length, p.customers],
      ['notifications sent', n.sent, n.expected],
    ],
  );
}

function dlqLines(name: string, entries: readonly DlqEntry[]): string[] {
  const lines = [`  ${name}: ${entries.length} message(s)`];
  for (const e of entries) {
    const valid = e.effectApplied === true ? 'VALID (effect applied once; a duplicate copy)' : 'VALID, EFFECT MISSING';
    const what = e.defect === undefined ? `${valid} ${e.body}` : e.defect;
    lines.push(`    - ${what.padEnd(22)} ${e.reason} (receive count ${e.receiveCount})`);
  }
  return lines;
}

function invariants(r: LocalRunReport): string[] {
  const width = Math.max(...r.invariants.map((i) => i.name.length));
  return r.invariants.map((i) => `  ${i.ok ? 'PASS' : 'FAIL'}  ${i.name.padEnd(width)}  ${i.detail}`);
}

function summary(r: LocalRunReport): string[] {
  const d = r.dynamodb;
  const ops = Object.entries(d.byOperation)
    .sort(([, a], [, b]) => b.ok + b.failed - (a.ok + a.failed))
    .map(([op, c]) => {
      const n = c.ok + c.failed;
      return `${op} ${n}${c.failed > 0 ? ` (${c.failed} refused)` : ''} ~${(c.ms / Math.max(1, n)).toFixed(0)} ms`;
    })
    .join(', ');
  return [
    `DynamoDB     ${d.total} requests by the handlers = ${d.perDelivery.toFixed(2)} per delivery  [${ops}]`,
    `Duplicates   ${r.duplicatesAcknowledged} acknowledged without re-applying their effect`,
    `Faults       injected once per key: publish ${r.faultsInjected.publish}, notification send ${r.faultsInjected.send}, points ${r.faultsInjected.points}`,
    `Throughput   ${r.throughput.deliveries} deliveries in ${secs(r.timing.runMs)} = ${r.throughput.deliveriesPerSecond.toFixed(0)} deliveries/s` +
      `  (setup ${secs(r.timing.setupMs)}, total ${secs(r.timing.totalMs)})`,
  ];
}

/** The whole report as text. */
export function formatReport(r: LocalRunReport): string {
  const o = r.options;
  return [
    `effectively-once local run: ${o.orders} orders, seed ${o.seed}, ${o.pollers} pollers per queue, ` +
      `dup-rate ${o.dupRate}, fail-rate ${o.failRate}, visibility timeout ${o.visibilityTimeoutSeconds} s`,
    '',
    ...traffic(r),
    '',
    ...outcomes(r),
    '',
    ...metricsTable(r.metrics),
    '',
    ...effects(r),
    '',
    'Dead-letter queues',
    ...dlqLines('payments DLQ', r.dlq.payments),
    ...dlqLines('notifications DLQ', r.dlq.notifications),
    ...dlqLines('points on-failure destination', r.dlq.points),
    '',
    ...summary(r),
    '',
    'Invariants',
    ...invariants(r),
    '',
    `${r.ok ? 'All invariants hold.' : 'INVARIANTS BROKEN.'} Middleware log lines: ${r.logFile}`,
  ].join('\n');
}
