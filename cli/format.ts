/**
 * How results are printed: aligned text for people, one JSON document per
 * result with `--json` for scripts. Times are shown as ISO dates.
 */
import type { IdempotencyRecord } from '../src/engine/record.js';
import type { StaleClaim } from '../src/engine/store.js';
import type { Candidate, KeyForm } from './lookup.js';

const FORM_TEXT: Readonly<Record<KeyForm, string>> = {
  plain: 'the key as it is',
  hashed: 'the SHA-256 of the key (hashKeys)',
  id: 'the record id given',
};

const iso = (ms: number): string => new Date(ms).toISOString();

/** `IdempotencyRecord` times as ISO strings, for display. */
function displayFields(record: IdempotencyRecord): [string, string][] {
  const rows: [string, string][] = [
    ['status', record.status],
    ['attempts', String(record.attempts)],
  ];
  if (record.owner !== undefined) rows.push(['owner', record.owner]);
  if (record.claimedAt !== undefined) rows.push(['claimedAt', iso(record.claimedAt)]);
  if (record.leaseUntil !== undefined) rows.push(['leaseUntil', iso(record.leaseUntil)]);
  if (record.completedAt !== undefined) rows.push(['completedAt', iso(record.completedAt)]);
  rows.push(['expiresAt', iso(record.expiresAt * 1000)]);
  if (record.messageId !== undefined) rows.push(['messageId', record.messageId]);
  if (record.payloadHash !== undefined) rows.push(['payloadHash', record.payloadHash]);
  if (record.lastError !== undefined) rows.push(['lastError', record.lastError]);
  if ('result' in record) rows.push(['result', JSON.stringify(record.result) ?? 'undefined']);
  return rows;
}

/**
 * A found record as text: its id, which key form matched, one field a line.
 */
export function recordText(record: IdempotencyRecord, form: KeyForm): string {
  const rows = displayFields(record);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  return `${[`${record.id}  (matched ${FORM_TEXT[form]})`, ...lines].join('\n')}\n`;
}

/**
 * A found record as one JSON line.
 */
export function recordJson(record: IdempotencyRecord, form: KeyForm): string {
  return `${JSON.stringify({ id: record.id, matched: form, record })}\n`;
}

/**
 * Why nothing was printed: every id tried.
 */
export function notFoundText(tried: readonly Candidate[]): string {
  const ids = tried.map((c) => `${c.id} (${FORM_TEXT[c.form]})`).join(', ');
  return `no live record: tried ${ids}. A record past its retention counts as absent.\n`;
}

/**
 * Both key forms exist: the operator must say which one is meant.
 */
export function ambiguousText(found: readonly Candidate[]): string {
  const ids = found.map((c) => `${c.id} (${FORM_TEXT[c.form]})`).join(' and ');
  return `both key forms have a record: ${ids}. Pass --plain-keys or --hash-keys.\n`;
}

/**
 * Stale claims as an aligned table, oldest lease first, with how overdue each is.
 */
export function staleText(claims: readonly StaleClaim[], now: number, limit: number): string {
  if (claims.length === 0) return 'no stale claims\n';
  const rows = claims.map((c) => [c.id, iso(c.leaseUntil), overdue(now - c.leaseUntil), String(c.attempts ?? ''), c.messageId ?? '']);
  const header = ['id', 'leaseUntil', 'overdue', 'attempts', 'messageId'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const more = claims.length >= limit ? `(limit ${limit} reached: there may be more; raise --limit)\n` : '';
  return `${[line(header), ...rows.map(line)].join('\n')}\n${more}`;
}

/**
 * A duration in its two largest units: `2d3h`, `3h12m`, `4m5s`, `20s`.
 */
export function overdue(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return `${d}d${h}h`;
  if (h > 0) return `${h}h${m}m`;
  return m > 0 ? `${m}m${s % 60}s` : `${s}s`;
}
