/**
 * Cells and tables, shared by the text report on stdout and the Markdown
 * sections: numbers as the reports print them, and tables as rows of strings
 * laid out by each. Pure functions, imported by every report (never the other
 * way round).
 */
import type { RequestPatterns } from './stats.js';

/** A table: a header and rows of cells, laid out by the text report or the Markdown. */
export interface Table {
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export const fixed = (n: number | null | undefined, digits: number): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);
export const times = (n: number | null | undefined): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : `${n.toFixed(2)}x`;
export const usd = (n: number | null | undefined, digits = 3): string =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : `$${n.toFixed(digits)}`;
export const mb = (n: number): string => `${n.toLocaleString('en-US')} MB`;
export const percent = (share: number, digits = 1): string => `${(share * 100).toFixed(digits)} %`;

/** "applied/unique", with the excess or shortfall spelled out. */
export function effectsCell(r: { readonly effects: { readonly applied: number; readonly unique: number } }): string {
  const { applied, unique } = r.effects;
  const diff = applied - unique;
  return `${applied}/${unique}${diff === 0 ? '' : ` (${diff > 0 ? '+' : ''}${diff})`}`;
}

/**
 * The request pattern(s) batch log lines named: `per-record` when every line
 * named it, each with its count when they differ (`batched 3, per-record 247`),
 * `-` when none named one (not the claim strategy).
 */
export function patternsCell(patterns: RequestPatterns): string {
  const seen = Object.entries(patterns).filter(([, n]) => n !== undefined && n > 0);
  if (seen.length === 0) return '-';
  if (seen.length === 1) return seen[0]?.[0] ?? '-';
  return seen
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([p, n]) => `${p} ${n}`)
    .join(', ');
}

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
 * A table for a terminal: labels left-aligned, figures right-aligned; with
 * `freeLast` the last column (free text) is left as it is.
 */
export function textTable(t: Table, options: { readonly freeLast?: boolean } = {}): string[] {
  const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  if (options.freeLast === true) widths[widths.length - 1] = 0;
  const last = t.head.length - 1;
  const pad = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 || (options.freeLast === true && i === last) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [pad(t.head), ...t.rows.map(pad)];
}
