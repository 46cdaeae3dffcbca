/**
 * Argument parsing for the operator CLI, with `node:util` `parseArgs`:
 * options shared by every command, then each command's own. A mistake is a
 * `UsageError` (exit code 2) that names the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command line the CLI cannot run: exit code 2, with the usage text. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Where the table is and how to print. */
export interface ConnectionArgs {
  readonly table: string;
  readonly region: string | undefined;
  readonly endpoint: string | undefined;
  readonly json: boolean;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Flags every command accepts. */
export const COMMON_OPTIONS = {
  table: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** Parsed flags: strings and booleans by name. */
export type Flags = Readonly<Record<string, string | boolean | undefined>>;

/**
 * Parses `argv` against the common flags plus `own`; no positionals.
 * @throws UsageError for an unknown flag, a missing value or a stray argument.
 */
export function parseFlags(argv: readonly string[], own: Options): Flags {
  try {
    const { values } = parseArgs({ args: [...argv], options: { ...COMMON_OPTIONS, ...own }, strict: true, allowPositionals: false });
    return values as Flags;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * A string flag's value, `undefined` when absent.
 * @throws UsageError when it was given empty and `required` is set, or absent and required.
 */
export function stringFlag(flags: Flags, name: string, required: true): string;
export function stringFlag(flags: Flags, name: string, required?: false): string | undefined;
export function stringFlag(flags: Flags, name: string, required = false): string | undefined {
  const value = flags[name];
  if (typeof value === 'string' && value !== '') return value;
  if (value === '') throw new UsageError(`--${name} must not be empty.`);
  if (required) throw new UsageError(`--${name} is required.`);
  return undefined;
}

/**
 * The table, region and endpoint, from flags first, then the environment
 * (`IDEMPOTENCY_TABLE`, `AWS_REGION` / `AWS_DEFAULT_REGION`, `DYNAMODB_ENDPOINT`).
 * @throws UsageError when no table is named anywhere.
 */
export function connectionArgs(flags: Flags, env: Readonly<Record<string, string | undefined>>): ConnectionArgs {
  const table = stringFlag(flags, 'table') ?? nonEmpty(env['IDEMPOTENCY_TABLE']);
  if (table === undefined) throw new UsageError('--table is required (or set IDEMPOTENCY_TABLE).');
  if (!/^[\w.-]{3,255}$/.test(table)) {
    throw new UsageError(`--table "${table}" is not a DynamoDB table name: 3 to 255 characters of a-z, A-Z, 0-9, "_", "-" and ".".`);
  }
  return {
    table,
    region: stringFlag(flags, 'region') ?? nonEmpty(env['AWS_REGION']) ?? nonEmpty(env['AWS_DEFAULT_REGION']),
    endpoint: stringFlag(flags, 'endpoint') ?? nonEmpty(env['DYNAMODB_ENDPOINT']),
    json: flags['json'] === true,
  };
}

/** `value`, with an empty string read as absent (an exported but empty variable). */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration such as `15m`, `2h`, `90s`, `1d` or `500ms` in ms (a bare number is ms).
 * @throws UsageError naming the flag when the text is not a duration.
 */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  const unit = UNITS[m?.[2] ?? 'ms'];
  if (m === null || unit === undefined)
    throw new UsageError(`--${flag} must be a duration like 15m, 2h, 90s or 1d, got ${JSON.stringify(text)}.`);
  return Number(m[1]) * unit;
}

/**
 * A positive integer flag.
 * @throws UsageError naming the flag otherwise.
 */
export function parsePositiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`--${flag} must be a positive integer, got ${JSON.stringify(text)}.`);
  return n;
}
