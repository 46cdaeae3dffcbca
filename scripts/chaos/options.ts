/**
 * Command line of `npm run chaos`, declared as a flag table for the shared
 * parser in scripts/shared/flags.ts.
 */
import { helpText, parseFlags, UsageError } from '../shared/flags.js';

/** What the command line asked for. */
export interface ChaosCommand {
  readonly help: boolean;
  readonly seed: number;
  readonly seeds: number;
  readonly messages: number;
  readonly pollers: number;
  readonly json: boolean;
  readonly progress: boolean;
}

/** A bad command line; the message names the option and what it accepts (the shared {@link UsageError}). */
export const ChaosUsageError = UsageError;
export type ChaosUsageError = UsageError;

export const chaosDefaults = { seed: 1, seeds: 3, messages: 300, pollers: 4 } as const;

const cli = {
  usage: 'npm run chaos -- [options]',
  helpCommand: 'npm run chaos -- --help',
  summary: `Runs the reference service locally (DynamoDB Local + fauxqs) under a seeded
mix of faults (DynamoDB throttling, transaction conflicts, network errors
before and after a write landed, latency; Lambda crashes after the claim,
after the effect, after the completion and before the delete; batches timing
out mid-way; one batch given to two pollers at once; effects outlasting the
visibility timeout; transient failures; poison), until the queues drain.
Prints the invariants per strategy and exits 1 if one is broken.`,
  flags: {
    seed: {
      type: 'integer',
      help: 'first seed; a seed reproduces its fault plan',
      default: chaosDefaults.seed,
      min: 0,
      max: 2 ** 32 - 1,
    },
    seeds: { type: 'integer', help: 'seeds to run: N, N+1, ..., N+K-1', default: chaosDefaults.seeds, min: 1, max: 1_000, value: 'K' },
    messages: {
      type: 'integer',
      help: 'orders per seed; each is a payment, a notification and an\nOrderPaid event, plus re-sends',
      default: chaosDefaults.messages,
      min: 1,
      max: 100_000,
      value: 'M',
    },
    pollers: { type: 'integer', help: 'concurrent pollers per queue', default: chaosDefaults.pollers, min: 1, max: 64, value: 'P' },
    json: { type: 'boolean', help: 'print the report as JSON' },
    'no-progress': { type: 'boolean', help: 'no progress lines on stderr' },
  },
  footer: 'Set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.',
} as const;

export const chaosUsage = helpText(cli);

/** Parses argv (without node and the script). @throws ChaosUsageError on an unknown option or a bad value. */
export function parseChaosArgs(argv: readonly string[]): ChaosCommand {
  const parsed = parseFlags(cli, argv);
  if (parsed.help) return { help: true, ...chaosDefaults, json: false, progress: true };
  const v = parsed.values;
  return { help: false, seed: v.seed, seeds: v.seeds, messages: v.messages, pollers: v.pollers, json: v.json, progress: !v['no-progress'] };
}
