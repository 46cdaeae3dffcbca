/**
 * Options of the local run, their defaults, and its command line
 * (`npm start -- --orders 500 --seed 7`), declared as a flag table for the
 * shared parser in scripts/shared/flags.ts.
 */
import { helpText, parseFlags, UsageError, type FlagValues } from '../shared/flags.js';

export { UsageError };

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

const cli = {
  usage: 'npm start -- [options]',
  helpCommand: 'npm start -- --help',
  summary: `Runs the reference service locally (DynamoDB Local + fauxqs, no Docker, no AWS
account) under a workload with duplicates, failures and poison messages, then
prints a report and exits non-zero if an invariant is broken.`,
  flags: {
    orders: { type: 'integer', help: 'orders to pay', default: defaults.orders, min: 1, max: 100_000 },
    seed: { type: 'integer', help: 'seed of every random choice', default: defaults.seed, min: 0, max: 2 ** 32 - 1, value: 'S' },
    pollers: { type: 'integer', help: 'concurrent pollers per queue', default: defaults.pollers, min: 1, max: 64, value: 'P' },
    'dup-rate': { type: 'number', help: 'share of events delivered twice, 0..1', default: defaults.dupRate, min: 0, max: 1, value: 'R' },
    'fail-rate': {
      type: 'number',
      help: 'share of keys failing once transiently, 0..1;\na fifth of that share of batches also lose their ACK (crash before the delete)',
      default: defaults.failRate,
      min: 0,
      max: 1,
      value: 'R',
    },
    'visibility-timeout': {
      type: 'integer',
      help: 'local visibility timeout in seconds, 1..30',
      default: defaults.visibilityTimeoutSeconds,
      min: 1,
      max: 30,
      value: 'S',
    },
    json: { type: 'boolean', help: 'print the report as JSON' },
    'no-progress': { type: 'boolean', help: 'do not print progress lines to stderr' },
  },
  footer: 'Set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.',
} as const;

export const usage = helpText(cli);

function workloadOf(v: FlagValues<typeof cli.flags>): WorkloadOptions {
  return {
    orders: v.orders,
    seed: v.seed,
    pollers: v.pollers,
    dupRate: v['dup-rate'],
    failRate: v['fail-rate'],
    visibilityTimeoutSeconds: v['visibility-timeout'],
  };
}

/**
 * Parses `process.argv.slice(2)`. Accepts `--flag value` and `--flag=value`.
 * @throws UsageError for an unknown flag, a missing value or a value out of range.
 */
export function parseArgs(argv: readonly string[]): Command {
  const parsed = parseFlags(cli, argv);
  if (parsed.help) return { kind: 'help' };
  const v = parsed.values;
  return { kind: 'run', workload: workloadOf(v), json: v.json, progress: !v['no-progress'] };
}
