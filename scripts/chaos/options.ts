/**
 * Command line of `npm run chaos`.
 */
import { parseArgs } from 'node:util';

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

/** A bad command line; the message names the option and what it accepts. */
export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

export const chaosDefaults = { seed: 1, seeds: 3, messages: 300, pollers: 4 } as const;

export const chaosUsage = `Usage: npm run chaos -- [options]

Runs the reference service locally (DynamoDB Local + fauxqs) under a seeded
mix of faults (DynamoDB throttling, transaction conflicts, network errors
before and after a write landed, latency; Lambda crashes after the claim,
after the effect, after the completion and before the delete; batches timing
out mid-way; one batch given to two pollers at once; effects outlasting the
visibility timeout; transient failures; poison), until the queues drain.
Prints the invariants per strategy and exits 1 if one is broken.

Options:
  --seed N       first seed (default ${chaosDefaults.seed}); a seed reproduces its fault plan
  --seeds K      seeds to run: N, N+1, ..., N+K-1 (default ${chaosDefaults.seeds})
  --messages M   orders per seed; each is a payment, a notification and an
                 OrderPaid event, plus re-sends (default ${chaosDefaults.messages})
  --pollers P    concurrent pollers per queue (default ${chaosDefaults.pollers})
  --json         print the report as JSON
  --no-progress  no progress lines on stderr
  -h, --help     this text

Set DYNAMODB_ENDPOINT=http://host:port to use a DynamoDB Local that is already running.
`;

function integer(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new ChaosUsageError(`--${flag} must be an integer from ${min} to ${max}, got "${raw}".`);
  }
  return n;
}

/** Parses argv (without node and the script). @throws ChaosUsageError on an unknown option or a bad value. */
export function parseChaosArgs(argv: readonly string[]): ChaosCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        seed: { type: 'string' },
        seeds: { type: 'string' },
        messages: { type: 'string' },
        pollers: { type: 'string' },
        json: { type: 'boolean', default: false },
        'no-progress': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new ChaosUsageError(`${(err as Error).message} Run \`npm run chaos -- --help\` for the options.`, { cause: err });
  }
  return {
    help: values.help,
    seed: integer('seed', values.seed, chaosDefaults.seed, 0, 2 ** 32 - 1),
    seeds: integer('seeds', values.seeds, chaosDefaults.seeds, 1, 1_000),
    messages: integer('messages', values.messages, chaosDefaults.messages, 1, 100_000),
    pollers: integer('pollers', values.pollers, chaosDefaults.pollers, 1, 64),
    json: values.json,
    progress: !values['no-progress'],
  };
}
