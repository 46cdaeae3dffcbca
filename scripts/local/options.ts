/**
 * Options of the local run, their defaults, and the command-line parser for
 * `npm start -- --orders 500 --seed 7`. Parsed by hand: five flags do not
 * justify a dependency.
 */

/** What a workload looks like and how the local event-source mapping runs it. */
export interface WorkloadOptions {
  /** Orders seeded as PENDING, each paid by one payment message. */
  readonly orders: number;
  /** Seed of every random choice (duplicates, failures, order of sends). */
  readonly seed: number;
  /** Concurrent pollers per queue (the mapping's concurrency). */
  readonly pollers: number;
  /** Share of business events delivered more than once (re-sent under a new message id). */
  readonly dupRate: number;
  /** Share of business keys whose side effect fails transiently on the first attempt. */
  readonly failRate: number;
  /** Local visibility timeout in seconds: short, so retries and redrives happen within the run. */
  readonly visibilityTimeoutSeconds: number;
}

/** Defaults: about 2000 orders finish in well under a minute on two cores. */
export const defaults: WorkloadOptions = Object.freeze({
  orders: 2000,
  seed: 42,
  pollers: 4,
  dupRate: 0.1,
  failRate: 0.05,
  visibilityTimeoutSeconds: 2,
});

/** What the command line asked for. */
export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'run'; readonly workload: WorkloadOptions; readonly json: boolean; readonly progress: boolean };

/** A bad command line; the message says which option and what it accepts. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const usage = `Usage: npm start -- [options]

Runs the reference service locally (DynamoDB Local + fauxqs, no Docker, no AWS
account) under a workload with duplicates, failures and poison messages, then
prints a report and exits non-zero if an invariant is broken.

Options:
  --orders N              orders to pay (default ${defaults.orders})
  --seed S                seed of every random choice (default ${defaults.seed})
  --pollers P             concurrent pollers per queue (default ${defaults.pollers})
  --dup-rate R            share of events delivered twice, 0..1 (default ${defaults.dupRate})
  --fail-rate R           share of keys failing once transiently, 0..1 (default ${defaults.failRate});
                          a fifth of that share of batches also lose their ACK (crash before the delete)
  --visibility-timeout S  local visibility timeout in seconds, 1..30 (default ${defaults.visibilityTimeoutSeconds})
  --json                  print the report as JSON
  --no-progress           do not print progress lines to stderr
  -h, --help              print this help

Set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.`;

interface NumberRule {
  readonly field: keyof WorkloadOptions;
  readonly integer: boolean;
  readonly min: number;
  readonly max: number;
}

const numberFlags: Readonly<Record<string, NumberRule>> = {
  '--orders': { field: 'orders', integer: true, min: 1, max: 100_000 },
  '--seed': { field: 'seed', integer: true, min: 0, max: 2 ** 32 - 1 },
  '--pollers': { field: 'pollers', integer: true, min: 1, max: 64 },
  '--dup-rate': { field: 'dupRate', integer: false, min: 0, max: 1 },
  '--fail-rate': { field: 'failRate', integer: false, min: 0, max: 1 },
  '--visibility-timeout': { field: 'visibilityTimeoutSeconds', integer: true, min: 1, max: 30 },
};

function parseNumber(flag: string, rule: NumberRule, raw: string | undefined): number {
  const kind = rule.integer ? 'an integer' : 'a number';
  if (raw === undefined || raw.startsWith('--')) throw new UsageError(`${flag} needs a value (${kind}).`);
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || (rule.integer && !Number.isInteger(value))) {
    throw new UsageError(`${flag} must be ${kind}, got "${raw}".`);
  }
  if (value < rule.min || value > rule.max) {
    throw new UsageError(`${flag} must be between ${rule.min} and ${rule.max}, got ${raw}.`);
  }
  return value;
}

/**
 * Parses `process.argv.slice(2)`. Accepts `--flag value` and `--flag=value`.
 * @throws UsageError for an unknown flag, a missing value or a value out of range.
 */
export function parseArgs(argv: readonly string[]): Command {
  const workload: Record<string, number> = { ...defaults };
  let json = false;
  let progress = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = flag === arg ? undefined : arg.slice(eq + 1);
    if (flag === '-h' || flag === '--help') return { kind: 'help' };
    if (flag === '--json' || flag === '--no-progress') {
      if (inline !== undefined) throw new UsageError(`${flag} takes no value.`);
      if (flag === '--json') json = true;
      else progress = false;
      continue;
    }
    const rule = numberFlags[flag];
    if (rule === undefined) throw new UsageError(`Unknown option "${arg}". Run \`npm start -- --help\` for the list.`);
    const raw = inline ?? argv[++i];
    workload[rule.field] = parseNumber(flag, rule, raw);
  }
  return { kind: 'run', workload: workload as unknown as WorkloadOptions, json, progress };
}
