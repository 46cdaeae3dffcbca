/**
 * `check`: whether a table can hold a claim. Reads `DescribeTable`,
 * `DescribeTimeToLive` and `DescribeContinuousBackups` (the last two where
 * the caller may: a refusal is a warning, not a crash) and prints one line
 * per check with a pass, warn or fail mark. The decision is a pure function
 * of those descriptions ({@link tableChecks}), so every case, global tables
 * included, is tested without AWS.
 */
import {
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type ContinuousBackupsDescription,
  type TableDescription,
  type TimeToLiveDescription,
} from '@aws-sdk/client-dynamodb';
import { errorParts } from '../src/engine/errors.js';
import { ATTR } from '../src/stores/dynamodb/layout.js';
import { EXIT, type Command, type CommandContext } from './command.js';

/** How a check came out: `fail` makes the command exit non-zero. */
export type CheckMark = 'pass' | 'warn' | 'fail';

/** One line of the report. */
export interface TableCheck {
  readonly check: 'key schema' | 'TTL' | 'billing mode' | 'stream' | 'replicas' | 'PITR';
  readonly mark: CheckMark;
  readonly detail: string;
}

/** A description the caller could not read: the error's name and message. */
export interface Unreadable {
  readonly unreadable: string;
}

/** What the checks are decided from. */
export interface TableFacts {
  readonly table: TableDescription;
  readonly ttl: TimeToLiveDescription | Unreadable;
  readonly backups: ContinuousBackupsDescription | Unreadable;
}

/** The warning for a multi-Region eventually consistent global table (also in docs/operations.md and docs/options.md). */
export const GLOBAL_TABLE_WARNING =
  "claims are per Region on a multi-Region eventually consistent global table; route a key's messages to one Region or use multi-Region strong consistency";

const isUnreadable = (value: object): value is Unreadable => 'unreadable' in value;

function keySchema(table: TableDescription): TableCheck {
  const keys = table.KeySchema ?? [];
  const types = new Map((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const shown = keys.map((k) => `${k.AttributeName} ${k.KeyType} ${types.get(k.AttributeName) ?? '?'}`).join(', ');
  const [only] = keys;
  if (keys.length === 1 && only?.AttributeName === ATTR.id && only.KeyType === 'HASH' && types.get(ATTR.id) === 'S') {
    return { check: 'key schema', mark: 'pass', detail: shown };
  }
  return {
    check: 'key schema',
    mark: 'fail',
    detail: `${shown || 'none'}; the store needs exactly one key, "${ATTR.id}" (HASH, string): every record would fail`,
  };
}

function timeToLive(ttl: TableFacts['ttl']): TableCheck {
  if (isUnreadable(ttl)) return { check: 'TTL', mark: 'warn', detail: `could not read it (${ttl.unreadable})` };
  const status = ttl.TimeToLiveStatus ?? 'DISABLED';
  const on = status === 'ENABLED' || status === 'ENABLING';
  if (on && ttl.AttributeName === ATTR.expiresAt) return { check: 'TTL', mark: 'pass', detail: `${ATTR.expiresAt}, ${status}` };
  if (on) {
    return {
      check: 'TTL',
      mark: 'fail',
      detail: `on "${ttl.AttributeName ?? '?'}" (${status}); records expire by "${ATTR.expiresAt}": the table grows forever`,
    };
  }
  return { check: 'TTL', mark: 'fail', detail: `${status}; enable TTL on "${ATTR.expiresAt}", or the table grows forever` };
}

function billingMode(table: TableDescription): TableCheck {
  // A table created before on-demand existed has no summary: it is provisioned.
  const mode = table.BillingModeSummary?.BillingMode ?? 'PROVISIONED';
  if (mode === 'PAY_PER_REQUEST') return { check: 'billing mode', mark: 'pass', detail: 'PAY_PER_REQUEST' };
  const { ReadCapacityUnits: read, WriteCapacityUnits: write } = table.ProvisionedThroughput ?? {};
  return {
    check: 'billing mode',
    mark: 'warn',
    detail: `PROVISIONED (${read ?? '?'} RCU, ${write ?? '?'} WCU): a throttled claim fails its record; use auto scaling or PAY_PER_REQUEST`,
  };
}

function stream(table: TableDescription): TableCheck {
  const spec = table.StreamSpecification;
  const view = spec?.StreamEnabled === true ? spec.StreamViewType : undefined;
  if (view === 'NEW_IMAGE' || view === 'NEW_AND_OLD_IMAGES') return { check: 'stream', mark: 'pass', detail: view };
  return {
    check: 'stream',
    mark: 'fail',
    detail: `${view ?? 'no stream'}; outboxRelay() needs NEW_IMAGE or NEW_AND_OLD_IMAGES to publish outbox items`,
  };
}

function replicas(table: TableDescription): TableCheck {
  const regions = (table.Replicas ?? []).map((r) => r.RegionName ?? '?');
  if (regions.length === 0) return { check: 'replicas', mark: 'pass', detail: 'none (a single-Region table)' };
  const listed = regions.join(', ');
  if (table.MultiRegionConsistency === 'STRONG') {
    return { check: 'replicas', mark: 'pass', detail: `${listed}; multi-Region strong consistency` };
  }
  return { check: 'replicas', mark: 'warn', detail: `${listed}; ${GLOBAL_TABLE_WARNING}` };
}

function pitr(backups: TableFacts['backups']): TableCheck {
  if (isUnreadable(backups)) return { check: 'PITR', mark: 'warn', detail: `could not read it (${backups.unreadable})` };
  const status = backups.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus ?? 'DISABLED';
  if (status === 'ENABLED') return { check: 'PITR', mark: 'pass', detail: 'ENABLED' };
  return { check: 'PITR', mark: 'warn', detail: `${status}; a table restored without it loses which events already ran` };
}

/**
 * The checks for a table, decided from its descriptions. `outbox`: the table
 * is the one `tx.outbox()` writes to (its stream is checked; its key is the
 * business's own, and its claims none, so key schema and replicas are not).
 */
export function tableChecks(facts: TableFacts, options: { readonly outbox?: boolean } = {}): TableCheck[] {
  const { table } = facts;
  if (options.outbox === true) return [timeToLive(facts.ttl), billingMode(table), stream(table), pitr(facts.backups)];
  return [keySchema(table), timeToLive(facts.ttl), billingMode(table), replicas(table), pitr(facts.backups)];
}

/** A describe call the caller may not be allowed (or the endpoint may not answer): its refusal, as text. */
async function readable<T extends object>(call: () => Promise<T | undefined>): Promise<T | Unreadable> {
  try {
    return (await call()) ?? { unreadable: 'no description returned' };
  } catch (error) {
    const { name, message } = errorParts(error);
    return { unreadable: `${name}: ${message}` };
  }
}

/** Reads the facts; a missing table (or no DescribeTable permission) is the error it is. */
async function readFacts(ctx: CommandContext): Promise<TableFacts> {
  const { client } = ctx.clients;
  const TableName = ctx.where.table;
  const described = await client.send(new DescribeTableCommand({ TableName }));
  const [ttl, backups] = await Promise.all([
    readable(async () => (await client.send(new DescribeTimeToLiveCommand({ TableName }))).TimeToLiveDescription),
    readable(async () => (await client.send(new DescribeContinuousBackupsCommand({ TableName }))).ContinuousBackupsDescription),
  ]);
  return { table: described.Table ?? {}, ttl, backups };
}

const WIDTH = Math.max(...(['key schema', 'TTL', 'billing mode', 'stream', 'replicas', 'PITR'] as const).map((c) => c.length));

async function check(ctx: CommandContext): Promise<number> {
  const outbox = ctx.flags['outbox'] === true;
  const checks = tableChecks(await readFacts(ctx), { outbox });
  const failed = checks.some((c) => c.mark === 'fail');
  if (ctx.where.json) {
    ctx.io.stdout(`${JSON.stringify({ table: ctx.where.table, outbox, ok: !failed, checks })}\n`);
  } else {
    const lines = checks.map((c) => `${c.mark.toUpperCase().padEnd(4)}  ${c.check.padEnd(WIDTH)}  ${c.detail}`);
    ctx.io.stdout(`${lines.join('\n')}\n`);
  }
  return failed ? EXIT.failed : EXIT.ok;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'check that a table can hold claims (key, TTL, billing, replicas, PITR; --outbox: stream)',
  options: { outbox: { type: 'boolean' } },
  usage: `effectively-once check --table T [--outbox] [--json]
  Reads DescribeTable, DescribeTimeToLive and DescribeContinuousBackups and prints one line per check,
  PASS, WARN or FAIL: key schema ("id" HASH string), TTL on "expiresAt", billing mode, replicas (a
  multi-Region eventually consistent global table is a warning), PITR. --outbox: the table is the one
  tx.outbox() writes to: its stream must be NEW_IMAGE or NEW_AND_OLD_IMAGES (key schema and replicas
  are not checked). A describe call refused (AccessDenied) is a WARN. Exit code 1 on any FAIL. Read-only.`,
  run: check,
};
