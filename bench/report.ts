/**
 * Output: a readable table for people (stdout), or one JSON document for
 * machines (`--json`). Both carry the same figures.
 */
import { cpus, platform, release } from 'node:os';
import { contenderSettings } from './contenders.js';
import type { FencingResult } from './fencing.js';
import type { BenchOptions, ScenarioResult } from './measure.js';
import type { SideFigures } from './stats.js';

/** Everything a run produced. */
export interface BenchReport {
  readonly date: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly node: string; readonly os: string };
  readonly endpoint: string;
  readonly options: BenchOptions;
  /** What each side runs with (see `contenderSettings`). */
  readonly settings: typeof contenderSettings;
  readonly scenarios: readonly ScenarioResult[];
  readonly fencing: readonly FencingResult[];
}

/** The machine the figures come from. */
export function machine(): BenchReport['machine'] {
  const list = cpus();
  return { cpus: list.length, cpuModel: list[0]?.model ?? 'unknown', node: process.version, os: `${platform()} ${release()}` };
}

const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const ratio = (n: number | null): string => (n === null || !Number.isFinite(n) ? '-' : `${n.toFixed(2)}x`);

function pad(cells: readonly string[], widths: readonly number[]): string {
  // First column left-aligned (labels), the figures right-aligned.
  return cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
}

const HEAD = ['', 'req/rec', 'units/rec', 'records/s', 'p50 ms', 'p95 ms', 'CPU ms', 'effects', 'requests per record by command'];
const WIDTHS = [12, 8, 9, 10, 8, 8, 7, 9, 0];

function commands(f: SideFigures): string {
  return Object.entries(f.byCommand)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name.replace(/Command$/, '')} ${n.toFixed(2)}`)
    .join(', ');
}

function sideRow(label: string, f: SideFigures): string {
  const effects = `${f.effects}/${f.expectedEffects}`;
  return pad(
    [label, fixed(f.requestsPerRecord, 2), fixed(f.unitsPerRecord, 2), fixed(f.recordsPerSecond, 0), fixed(f.p50Ms, 2), fixed(f.p95Ms, 2), fixed(f.cpuMsPerBatch, 2), effects, commands(f) || '(none)'],
    WIDTHS,
  );
}

function scenarioBlock(r: ScenarioResult): string[] {
  const lines = [`${r.scenario.title}: ${r.scenario.note}`, pad(HEAD, WIDTHS), sideRow('ours', r.ours), sideRow('powertools', r.powertools)];
  const q = r.ratios;
  lines.push(pad(['ours/PT', ratio(q.requestsPerRecord), ratio(q.unitsPerRecord), ratio(q.recordsPerSecond), ratio(q.p50Ms), ratio(q.p95Ms), ratio(q.cpuMsPerBatch), '', ''], WIDTHS));
  for (const [side, f] of [['ours', r.ours], ['powertools', r.powertools]] as const) {
    if (f.failures > 0) lines.push(`  ! ${side}: ${f.failures} records reported in batchItemFailures`);
  }
  for (const [side, error] of Object.entries(r.errors)) lines.push(`  ! ${side}: ${error}`);
  return lines;
}

function fencingBlock(results: readonly FencingResult[]): string[] {
  if (results.length === 0) return [];
  const lines = [
    'Correctness: lease takeover (A claims, stalls past its lease; B takes over and is still running;',
    'A finishes late; C re-delivers the key while B still runs). Observed, not asserted:',
  ];
  for (const r of results) {
    lines.push(`  ${r.variant} — ${r.side}`);
    lines.push(`    record before A finished: ${r.recordBeforeA}`);
    lines.push(`    A's late ${r.variant === 'late-success' ? 'completion' : 'release'}: ${r.aWrite}; A's message: ${r.aOutcome}`);
    lines.push(`    C while B runs: ${r.cOutcome}`);
    lines.push(`    effect ran ${r.executions} time(s) (A, B${r.cRan ? ', C' : ''}); final record: ${r.finalRecord}`);
  }
  return lines;
}

const SUMMARY_HEAD = ['scenario', 'req/rec ours|PT', 'units/rec ours|PT', 'records/s', 'p50', 'p95', 'CPU'];
const SUMMARY_WIDTHS = [28, 16, 18, 10, 7, 7, 7];

function summaryBlock(results: readonly ScenarioResult[]): string[] {
  if (results.length === 0) return [];
  const lines = ['Summary (ours/PT ratios as above)', pad([...SUMMARY_HEAD, ''], [...SUMMARY_WIDTHS, 0])];
  for (const r of results) {
    const q = r.ratios;
    const both = (a: number, b: number) => `${fixed(a, 2)} | ${fixed(b, 2)}`;
    lines.push(
      pad(
        [
          r.scenario.title,
          both(r.ours.requestsPerRecord, r.powertools.requestsPerRecord),
          both(r.ours.unitsPerRecord, r.powertools.unitsPerRecord),
          ratio(q.recordsPerSecond),
          ratio(q.p50Ms),
          ratio(q.p95Ms),
          ratio(q.cpuMsPerBatch),
          '',
        ],
        [...SUMMARY_WIDTHS, 0],
      ),
    );
  }
  return [...lines, ''];
}

/** The human-readable report. */
export function formatTable(report: BenchReport): string {
  const m = report.machine;
  const o = report.options;
  const lines = [
    `effectively-once vs Powertools (idempotency + batch 2.35.0) on DynamoDB Local, ${report.date}`,
    `${m.cpus} cores (${m.cpuModel}), Node ${m.node}, ${m.os}`,
    `batch ${o.batch} records, ${o.rounds} measured rounds (+${o.warmup} warm-up) per side, order alternating each round`,
    `ours: ${report.settings.ours}`,
    `powertools: ${report.settings.powertools}`,
    'req/rec: DynamoDB HTTP requests per record (retries included). units/rec: capacity units per record as the endpoint',
    'reports them (ReturnConsumedCapacity INDEXES: index writes included), +1 WRU per failed conditional write (billed, unreported).',
    'p50/p95: batch latency. CPU ms: node CPU per batch (DynamoDB Local is another process). effects: handler runs / expected.',
    'ours/PT: below 1x is better for req/rec, latency and CPU; above 1x is better for records/s.',
    '',
  ];
  for (const r of report.scenarios) lines.push(...scenarioBlock(r), '');
  lines.push(...summaryBlock(report.scenarios), ...fencingBlock(report.fencing));
  return `${lines.join('\n')}\n`;
}

/** The machine-readable report. */
export function formatJson(report: BenchReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
