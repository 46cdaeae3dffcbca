/**
 * Command-line options of `npm run bench`.
 */
import { parseArgs } from 'node:util';
import { variantIds } from './variants.js';

/** A bad command line: the message names the option and what it accepts. */
export class BenchUsageError extends TypeError {
  override readonly name = 'BenchUsageError';
  /** The option at fault, without dashes (`undefined` when the parser could not tell). */
  readonly option: string | undefined;

  constructor(message: string, option?: string) {
    super(message);
    this.option = option;
  }
}

/** Parsed command line. */
export interface BenchArgs {
  readonly events: number;
  readonly duplicateRate: number;
  readonly seed: number;
  readonly batch: number;
  /** Added before every DynamoDB request, ms. */
  readonly latencyMs: number;
  /** Warm-up batches per variant, not measured. */
  readonly warmup: number;
  /** Import-time samples per handler for the cold-start figures. */
  readonly importSamples: number;
  /** Variant ids to run (default: all). */
  readonly only: readonly string[];
  readonly units: boolean;
  readonly correctness: boolean;
  readonly coldStart: boolean;
  /** Where to write the Markdown report; undefined: do not write one. */
  readonly docs: string | undefined;
  readonly json: boolean;
  readonly help: boolean;
}

/** Defaults: the workload, sized for a few minutes on a 2-core machine. */
export const benchDefaults = {
  events: 5000,
  duplicateRate: 0.25,
  seed: 1,
  batch: 10,
  latencyMs: 0,
  warmup: 20,
  importSamples: 9,
  docs: 'docs/benchmarks.md',
} as const;

export const usage = `Usage: npm run bench -- [options]

Pushes one seeded SQS workload (business events, some delivered again under
new message ids) through the business write alone, AWS Powertools
idempotency + batch, and effectively-once (claim, transaction, state
machine), interleaved batch by batch on DynamoDB Local, and prints the
figures side by side. Starts DynamoDB Local itself unless DYNAMODB_ENDPOINT
is set. Also measures the cold-start weight of a minimal handler with each
library, and a lease-takeover correctness comparison.

Options:
  --events N        unique business events (default ${benchDefaults.events}; 500 for a quick run)
  --dup-rate R      extra deliveries per event, 0..10 (default ${benchDefaults.duplicateRate})
  --seed N          workload seed, a non-negative integer (default ${benchDefaults.seed})
  --batch N         records per SQS batch, 1..10000 (default ${benchDefaults.batch})
  --latency MS      added before every DynamoDB request, 0..1000 ms (default ${benchDefaults.latencyMs})
  --warmup N        warm-up batches per variant, not measured (default ${benchDefaults.warmup})
  --import-samples N  fresh-process imports per handler for the cold start (default ${benchDefaults.importSamples})
  --only a,b        variants to run, each with the one it is compared with:
                    ${variantIds.join(', ')}
  --units           also count capacity units (asks DynamoDB for them on every request; costs DynamoDB Local CPU)
  --no-cold-start   skip the bundle and import-time figures
  --no-correctness  skip the lease-takeover comparison
  --docs FILE       write the Markdown report there (default ${benchDefaults.docs}; a run replaces only its own section)
  --no-docs         do not write the Markdown report
  --json            one JSON document on stdout instead of the table
  --help            this text
`;

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new BenchUsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}".`, name);
  }
  return n;
}

function decimal(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new BenchUsageError(`--${name} must be a number from ${min} to ${max}, got "${raw}".`, name);
  }
  return n;
}

function variantList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const only = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const known = new Set(variantIds);
  const unknown = only.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new BenchUsageError(`--only: unknown variant ${unknown.join(', ')} (known: ${variantIds.join(', ')}).`, 'only');
  if (only.length === 0) throw new BenchUsageError('--only needs at least one variant.', 'only');
  return only;
}

const OPTIONS = {
  events: { type: 'string' },
  'dup-rate': { type: 'string' },
  seed: { type: 'string' },
  batch: { type: 'string' },
  latency: { type: 'string' },
  warmup: { type: 'string' },
  'import-samples': { type: 'string' },
  only: { type: 'string' },
  units: { type: 'boolean', default: false },
  'no-cold-start': { type: 'boolean', default: false },
  'no-correctness': { type: 'boolean', default: false },
  docs: { type: 'string' },
  'no-docs': { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (err) {
    // node:util's own errors (unknown option, missing value) become ours, with the same message.
    throw new BenchUsageError(err instanceof Error ? err.message : String(err));
  }
}

/** Parses argv (without node and script). @throws BenchUsageError on an unknown option or a bad value. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const values = parse(argv);
  if (values.docs !== undefined && values['no-docs']) throw new BenchUsageError('--docs and --no-docs exclude each other.', 'docs');
  if (values.docs !== undefined && values.docs.trim() === '') throw new BenchUsageError('--docs needs a file name.', 'docs');
  return {
    events: integer('events', values.events, benchDefaults.events, 1, 1_000_000),
    duplicateRate: decimal('dup-rate', values['dup-rate'], benchDefaults.duplicateRate, 0, 10),
    seed: integer('seed', values.seed, benchDefaults.seed, 0, 2 ** 32 - 1),
    batch: integer('batch', values.batch, benchDefaults.batch, 1, 10_000),
    latencyMs: decimal('latency', values.latency, benchDefaults.latencyMs, 0, 1000),
    warmup: integer('warmup', values.warmup, benchDefaults.warmup, 0, 100_000),
    importSamples: integer('import-samples', values['import-samples'], benchDefaults.importSamples, 1, 1000),
    only: variantList(values.only),
    units: values.units,
    coldStart: !values['no-cold-start'],
    correctness: !values['no-correctness'],
    docs: values['no-docs'] ? undefined : (values.docs ?? benchDefaults.docs),
    json: values.json,
    help: values.help,
  };
}
