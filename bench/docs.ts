/**
 * The Markdown report (`docs/benchmarks.md` by default). Each run writes one
 * section, keyed by its added latency, between marker comments, and leaves
 * the rest of the file alone: the default run and the `--latency 5` run sit
 * side by side, and the notes written by hand around them stay.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  anomalies,
  coldStartHead,
  coldStartRows,
  fencingHead,
  fencingRows,
  fixed,
  summaryColumns,
  targetVerdict,
  unitsNotes,
} from './report.js';
import { benchDefaults } from './args.js';
import { awsModelLines } from './aws-docs.js';
import type { BenchReport } from './results.js';

/** Hand-written notes go below this line; new sections are inserted above it. */
export const NOTES_MARKER = '<!-- bench:notes -->';

const SKELETON = `# Benchmarks

Written by \`npm run bench\` (see [bench/README.md](../bench/README.md)). Each
run replaces its own section; the notes below the sections are kept.

${NOTES_MARKER}
`;

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${head.map(cell).join(' | ')} |`,
    `|${head.map(() => ' --- ').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

/**
 * The section key: `aws` for the AWS model, else one per added latency; the
 * default duplicate rate keeps the plain key, another adds `-dup-R`.
 */
export function sectionKey(report: BenchReport): string {
  const { latencyMs, duplicateRate, aws } = report.workload;
  const base = aws ? 'aws' : `latency-${latencyMs}`;
  return duplicateRate === benchDefaults.duplicateRate ? base : `${base}-dup-${duplicateRate}`;
}

/**
 * Where a new section goes: the Lambda-shaped sweep's (`power`) lead the
 * file, then the AWS model's (`aws`), then the DynamoDB Local ones; a new
 * section is inserted above the first section of a later rank.
 */
export function sectionRank(key: string): number {
  const family = (name: string) => key === name || key.startsWith(`${name}-`);
  if (family('power')) return 0;
  if (family('aws')) return 1;
  return 2;
}

function heading(report: BenchReport): string {
  const { latencyMs: ms, duplicateRate, aws } = report.workload;
  const dup = `${Number((duplicateRate * 100).toFixed(2))} % duplicates`;
  if (aws) return `AWS model: Lambda-side latency floor per request, DynamoDB Local on its own core, ${dup}`;
  const base = ms === 0 ? 'DynamoDB Local, no added latency' : `DynamoDB Local + ${ms} ms added to every request (a region's round trip)`;
  return `${base}, ${dup}`;
}

function preamble(report: BenchReport): string[] {
  const m = report.machine;
  const v = report.versions;
  const w = report.workload;
  const cold = report.coldStart === undefined ? '' : `; esbuild ${report.coldStart.esbuild}`;
  return [
    `Command: \`${report.command}\` — ${report.date}, ${report.durationS.toFixed(0)} s.`,
    '',
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.os}; 1-minute load ${fixed(m.loadBefore, 2)} at the start, ${fixed(m.loadAfter ?? Number.NaN, 2)} at the end (${report.aws === undefined ? 'DynamoDB Local and the bench share the cores' : `${report.aws.pinning}; other processes on the machine may use both`}).`,
    '',
    `Versions: Node ${v.node}; effectively-once ${v.ours}; Powertools idempotency ${v.powertoolsIdempotency}, batch ${v.powertoolsBatch}; AWS SDK ${v.awsSdk}; @middy/core ${v.middy}; DynamoDB Local ${v.dynamodbLocal}${cold}.`,
    '',
    `Workload: ${w.events} business events + ${w.duplicates} duplicate deliveries under new message ids = ${w.deliveries} deliveries in ${w.batches} SQS batches of ${w.batchSize} (seed ${w.seed}), ` +
      `the same for every variant, each on fresh tables; interleaved batch by batch (first variant rotating) after ${w.warmupBatches} warm-up batches; ` +
      `records/s is the median over ${w.slices} slices of the run.${w.unitsCounted ? ' Capacity units counted (ReturnConsumedCapacity on every request).' : ''}`,
  ];
}

/** The Markdown of one run, markers included. */
export function renderSection(report: BenchReport): string {
  const key = sectionKey(report);
  const summary = summaryColumns(report);
  const lines = [
    `<!-- bench:begin ${key} -->`,
    `## ${heading(report)}`,
    '',
    ...preamble(report),
    ...(report.aws === undefined ? [] : ['', ...awsModelLines(report.aws)]),
    '',
    ...markdownTable(summary.head, summary.rows),
  ];
  const warnings = anomalies(report);
  if (warnings.length > 0) lines.push('', ...warnings.map((a) => `- **${a}**`));
  const units = unitsNotes(report);
  if (units.length > 0) lines.push('', ...units.map((u) => `- ${u}`));
  lines.push(
    '',
    '### Targets',
    '',
    ...markdownTable(
      ['target', 'measured', 'verdict'],
      report.targets.map((t) => [t.target, t.measured, targetVerdict(t)]),
    ),
  );
  if (report.coldStart !== undefined) {
    const c = report.coldStart;
    lines.push(
      '',
      '### Cold start',
      '',
      `${c.build}; import time: median of ${c.samples} fresh \`node\` processes each.`,
      '',
      ...markdownTable(coldStartHead, coldStartRows(c)),
    );
  }
  if (report.fencing.length > 0) {
    lines.push('', '### Lease takeover (observed, not asserted)', '', ...markdownTable(fencingHead, fencingRows(report.fencing)));
  }
  lines.push(`<!-- bench:end ${key} -->`);
  return lines.join('\n');
}

/** `existing` with this run's section replaced, or inserted above the notes (or at the end). */
export function mergeSection(existing: string, section: string, key: string): string {
  const begin = `<!-- bench:begin ${key} -->`;
  const end = `<!-- bench:end ${key} -->`;
  const from = existing.indexOf(begin);
  const to = existing.indexOf(end);
  if (from !== -1 && to > from) return existing.slice(0, from) + section + existing.slice(to + end.length);
  const rank = sectionRank(key);
  if (rank < 2) {
    const later = [...existing.matchAll(/<!-- bench:begin (\S+) -->/g)].find((m) => sectionRank(m[1] ?? '') > rank);
    if (later?.index !== undefined) return `${existing.slice(0, later.index)}${section}\n\n${existing.slice(later.index)}`;
  }
  const notes = existing.indexOf(NOTES_MARKER);
  if (notes !== -1) return `${existing.slice(0, notes)}${section}\n\n${existing.slice(notes)}`;
  return `${existing.trimEnd()}\n\n${section}\n`;
}

export function writeDocs(path: string, report: BenchReport): void {
  writeSection(path, renderSection(report), sectionKey(report));
}

/** Replaces (or inserts) one section of the Markdown report at `path`, creating the file when there is none. */
export function writeSection(path: string, section: string, key: string): void {
  const existing = existsSync(path) ? readFileSync(path, 'utf8') : SKELETON;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, mergeSection(existing, section, key));
}
