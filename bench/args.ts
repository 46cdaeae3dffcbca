/**
 * Command-line options of `npm run bench`.
 */
import { parseArgs } from 'node:util';
import type { BenchOptions } from './measure.js';
import { scenarios } from './scenarios.js';

/** Parsed command line. */
export interface BenchArgs extends BenchOptions {
  readonly json: boolean;
  readonly help: boolean;
  /** Scenario ids to run (default: all). */
  readonly only: readonly string[];
  /** Skip the lease-takeover comparison. */
  readonly skipCorrectness: boolean;
}

/** Defaults sized for about a minute on a 2-core machine. */
export const benchDefaults = { rounds: 60, warmup: 10, batch: 10 } as const;

export const usage = `Usage: npm run bench -- [options]

Runs effectively-once and AWS Powertools (idempotency + batch) on the same
SQS workloads against DynamoDB Local, in the same run, and prints the figures
side by side. Starts DynamoDB Local itself unless DYNAMODB_ENDPOINT is set.

Options:
  --rounds N        measured rounds per scenario and side (default ${benchDefaults.rounds})
  --warmup N        warm-up rounds, not measured (default ${benchDefaults.warmup})
  --batch N         records per SQS batch, 1..10000 (default ${benchDefaults.batch})
  --only a,b        scenarios to run: ${scenarios.map((s) => s.id).join(', ')}
  --no-correctness  skip the lease-takeover comparison
  --json            one JSON document on stdout instead of the table
  --help            this text
`;

function count(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new TypeError(`--${name} must be an integer from ${min} to ${max}, got "${raw}".`);
  }
  return n;
}

/** Parses argv (without node and script). @throws TypeError on an unknown option or a bad value. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      batch: { type: 'string' },
      only: { type: 'string' },
      'no-correctness': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const known = new Set(scenarios.map((s) => s.id));
  const only = values.only === undefined ? [] : values.only.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = only.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new TypeError(`--only: unknown scenario ${unknown.join(', ')} (known: ${[...known].join(', ')}).`);
  return {
    rounds: count('rounds', values.rounds, benchDefaults.rounds, 1, 100_000),
    warmup: count('warmup', values.warmup, benchDefaults.warmup, 0, 100_000),
    batch: count('batch', values.batch, benchDefaults.batch, 1, 10_000),
    only,
    skipCorrectness: values['no-correctness'],
    json: values.json,
    help: values.help,
  };
}
