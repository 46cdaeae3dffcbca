/**
 * The chaos report as text: the invariant table per strategy (all seeds
 * together), the faults that were injected, and one line per seed.
 */
import { metricsTable, table, type Cell } from '../local/format.js';
import type { MetricTotals } from '../local/metrics-collector.js';
import type { StrategyRow } from './invariants.js';
import type { ChaosReport, SeedResult } from './run.js';

const verdict = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');

/** The rows of every seed summed per strategy; an invariant holds only if it held under every seed. */
function totals(report: ChaosReport): StrategyRow[] {
  const first = report.seeds[0]?.rows ?? [];
  return first.map((_, i) => {
    const rows = report.seeds.map((s) => s.rows[i] as StrategyRow);
    const sum = (pick: (r: StrategyRow) => number | undefined) => rows.reduce((n, r) => n + (pick(r) ?? 0), 0);
    const base = rows[0] as StrategyRow;
    const invariants = base.invariants.map((inv, j) => {
      const all = rows.map((r) => r.invariants[j]);
      const failing = report.seeds.flatMap((s, k) => (all[k]?.ok === true ? [] : [`seed ${s.seed}: ${all[k]?.detail ?? ''}`]));
      return { name: inv.name, ok: failing.length === 0, detail: failing.join('; ') };
    });
    return {
      ...base,
      events: sum((r) => r.events),
      applied: sum((r) => r.applied),
      deadLettered: sum((r) => r.deadLettered),
      lost: sum((r) => r.lost),
      doubleEffects: sum((r) => r.doubleEffects),
      doublesInWindow: sum((r) => r.doublesInWindow),
      ackedWithoutEffect: sum((r) => r.ackedWithoutEffect),
      wholeBatchFailures: base.wholeBatchFailures === undefined ? undefined : sum((r) => r.wholeBatchFailures),
      leftOver: sum((r) => r.leftOver),
      deadLetters: rows.flatMap((r) => r.deadLetters),
      invariants,
      ok: invariants.every((inv) => inv.ok),
    };
  });
}

function strategyTable(rows: readonly StrategyRow[]): string[] {
  return table(
    ['strategy', 'events', 'applied', 'DLQ (reason)', 'lost', 'double effects', 'acked w/o effect', 'whole-batch fails', 'verdict'],
    rows.map((r) => [
      r.strategy,
      r.events,
      r.applied,
      r.deadLettered,
      r.lost,
      r.strategy === 'claim' ? `${r.doubleEffects} (${r.doublesInWindow} in window)` : r.doubleEffects,
      r.ackedWithoutEffect,
      r.wholeBatchFailures ?? '-',
      verdict(r.ok),
    ]),
  );
}

function invariantLines(rows: readonly StrategyRow[]): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    lines.push(`${r.strategy}: ${r.consumer}`);
    for (const inv of r.invariants) lines.push(`  ${verdict(inv.ok)}  ${inv.name}${inv.detail === '' ? '' : `: ${inv.detail}`}`);
    for (const d of r.deadLetters.slice(0, 5)) lines.push(`  DLQ   ${d.key} after ${d.receiveCount} receives: ${d.reason}`);
    if (r.deadLetters.length > 5) lines.push(`  DLQ   ... and ${r.deadLetters.length - 5} more (--json lists them all)`);
  }
  return lines;
}

function faultTable(seeds: readonly SeedResult[]): string[] {
  const sum = (pick: (s: SeedResult) => number) => seeds.reduce((n, s) => n + pick(s), 0);
  const ddb = (kind: 'throttle' | 'transaction-conflict' | 'network-before' | 'network-after' | 'latency') =>
    `${sum((s) => s.faults.dynamodb.injected[kind])} / ${sum((s) => s.faults.dynamodb.surfaced[kind])}`;
  const crash = (consumer: 'payments' | 'notifications' | 'points', point: 'after-claim' | 'before-complete' | 'after-complete') =>
    sum((s) => s.faults.crashes[consumer][point]);
  const rows: Cell[][] = [
    ['DynamoDB throttling (injected / reached the library)', ddb('throttle')],
    ['DynamoDB TransactionConflict', ddb('transaction-conflict')],
    ['DynamoDB network error before the write', ddb('network-before')],
    ['DynamoDB network error after the write landed', ddb('network-after')],
    ['DynamoDB added latency', ddb('latency')],
    [
      'crash after claim (payments / notifications / points)',
      ['payments', 'notifications', 'points'].map((c) => crash(c as 'payments', 'after-claim')).join(' / '),
    ],
    [
      'crash after effect, before complete',
      ['payments', 'notifications', 'points'].map((c) => crash(c as 'payments', 'before-complete')).join(' / '),
    ],
    [
      'crash after complete, before the response',
      ['payments', 'notifications', 'points'].map((c) => crash(c as 'payments', 'after-complete')).join(' / '),
    ],
    ['crash after the response, before the delete (lost ACK)', sum((s) => s.faults.lostAcks)],
    [
      'outbox relay crash (after PutEvents / before the mark)',
      `${sum((s) => s.faults.relayCrashes['after-put-events'])} / ${sum((s) => s.faults.relayCrashes['before-mark'])}`,
    ],
    [
      'batch delivered to two pollers at once (payments / notifications)',
      `${sum((s) => s.faults.deliveredTwice.payments)} / ${sum((s) => s.faults.deliveredTwice.notifications)}`,
    ],
    [
      'batch with a function timeout of a few dozen ms',
      `${sum((s) => s.faults.shortTimeouts.payments)} / ${sum((s) => s.faults.shortTimeouts.notifications)}`,
    ],
    [
      'invocations timed out (payments / notifications / points)',
      ['payments', 'notifications', 'points'].map((c) => sum((s) => s.faults.timedOutInvocations[c as 'payments'])).join(' / '),
    ],
    ['effect slower than the visibility timeout (in flight twice)', sum((s) => s.faults.slowEffects)],
    ['transient side-effect failure (first attempt)', sum((s) => s.faults.transientFailures)],
    ['permanent failure sent to the DLQ at once, acknowledged (SQS deadLetter)', sum((s) => s.sqsPaths.deadLettered)],
    ['record that came back, backed off (SQS backoff)', sum((s) => s.sqsPaths.backedOff)],
    [
      'group commit: groups sent / cancelled by one record / TransactionConflict / crashes / duplicate probes',
      [
        sum((s) => s.faults.groupCommit.groups),
        sum((s) => s.faults.groupCommit.cancelledByCondition),
        sum((s) => s.faults.groupCommit.conflicts),
        sum((s) => s.faults.groupCommit.crashes),
        sum((s) => s.faults.groupCommit.probes),
      ].join(' / '),
    ],
  ];
  return table(['Faults (all seeds)', 'count'], rows);
}

/** The seeds' EMF metrics summed per consumer (the slowest batch stays a maximum). */
function metricTotals(seeds: readonly SeedResult[]): MetricTotals {
  const all: MetricTotals = {};
  for (const seed of seeds) {
    for (const [consumer, sums] of Object.entries(seed.metrics)) {
      const into = (all[consumer] ??= {});
      for (const [name, value] of Object.entries(sums)) {
        into[name] = name === 'DurationMax' ? Math.max(into[name] ?? 0, value) : (into[name] ?? 0) + value;
      }
    }
  }
  return all;
}

/** The human-readable chaos report. */
export function formatChaosReport(report: ChaosReport): string {
  const o = report.options;
  const rows = totals(report);
  const deliveries = report.seeds.reduce((n, s) => n + s.deliveries, 0);
  const lines = [
    `Chaos run: seeds ${o.seed}..${o.seed + o.seeds - 1}, ${o.messages} orders each ` +
      `(${deliveries} deliveries in ${(report.totalMs / 1000).toFixed(0)} s)`,
    '',
    ...strategyTable(rows),
    '',
    ...invariantLines(rows),
    '',
    ...faultTable(report.seeds),
    '',
    ...metricsTable(metricTotals(report.seeds), 'EMF metrics (all seeds)'),
    '',
    ...table(
      ['seed', 'deliveries', 'run', 'state machine', 'transaction', 'claim (doubles in window)', 'outbox', 'transaction, group commit'],
      report.seeds.map((s) => [
        s.seed,
        s.deliveries,
        `${(s.runMs / 1000).toFixed(1)} s`,
        ...s.rows.map((r) => (r.strategy === 'claim' ? `${verdict(r.ok)} (${r.doubleEffects})` : verdict(r.ok))),
      ]),
    ),
    '',
    report.ok
      ? 'All invariants hold under every seed.'
      : 'BROKEN: at least one invariant failed (see above); rerun that seed with --seed N --seeds 1.',
  ];
  return `${lines.join('\n')}\n`;
}
