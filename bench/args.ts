/**
 * Command-line options of `npm run bench`, declared as a flag table for the
 * shared parser in scripts/shared/flags.ts.
 */
import { helpText, parseFlags, UsageError } from '../scripts/shared/flags.js';
import { variantIds } from './variants.js';

/** A bad command line: the message names the option and what it accepts (the shared {@link UsageError}). */
export const BenchUsageError = UsageError;
export type BenchUsageError = UsageError;

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
  /** `--aws`: the AWS model (aws-model.ts): latency floor per request, billed units and $, cores pinned. */
  readonly aws: boolean;
  readonly correctness: boolean;
  readonly coldStart: boolean;
  /** Where to write the Markdown report; undefined: do not write one. */
  readonly docs: string | undefined;
  readonly json: boolean;
  /**
   * `--memory`: the Lambda memory sizes of the sweep (ascending, no repeats),
   * each variant in its own CPU-limited process; empty: the one-process bench.
   */
  readonly memory: readonly number[];
  /** `--check-quota` (with `--memory`): check each size's CPU quota with a busy loop, then stop. */
  readonly checkQuota: boolean;
  /** `--lmi`: the vCPU counts of the Lambda Managed Instances environments (ascending); empty: none. */
  readonly lmi: readonly number[];
  /** `--in-flight` (with `--lmi`): the invocations each environment keeps going at once, ascending. */
  readonly inFlight: readonly number[];
  /** Raise the bench ahead of the machine's other processes (nice, the CPU groups' `cpu.shares`: priority.ts); `--no-priority` turns it off. */
  readonly priority: boolean;
  readonly help: boolean;
}

/** Lambda's memory sizes: 128 MB to 10,240 MB, in whole MB. */
export const LAMBDA_MEMORY_MB = { min: 128, max: 10_240 } as const;
/** Lambda Managed Instances: vCPUs per execution environment, and invocations in flight in one (PerExecutionEnvironmentMaxConcurrency). */
export const LMI_VCPUS = { min: 1, max: 16 } as const;
export const LMI_IN_FLIGHT = { min: 1, max: 1600 } as const;

/**
 * A comma-separated list of whole numbers within `bounds`, returned
 * ascending without repeats (`--memory 128,256`, `--lmi 1,2`).
 * @throws BenchUsageError naming the option and the value at fault.
 */
export function parseWholeList(
  raw: string,
  flag: string,
  what: { readonly name: string; readonly item: string; readonly unit?: string; readonly example: string },
  bounds: { readonly min: number; readonly max: number },
): number[] {
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.every((p) => p === ''))
    throw new BenchUsageError(`--${flag} needs at least one ${what.item}, e.g. --${flag} ${what.example}.`, flag);
  const values = new Set<number>();
  for (const part of parts) {
    if (part === '') throw new BenchUsageError(`--${flag}: an empty ${what.item} in "${raw}" (comma-separated).`, flag);
    const n = Number(part);
    if (!/^\d+$/.test(part) || n < bounds.min || n > bounds.max)
      throw new BenchUsageError(
        `--${flag}: "${part}" is not ${what.name} (a whole number ${what.unit === undefined ? '' : `of ${what.unit} `}from ${bounds.min} to ${bounds.max}).`,
        flag,
      );
    values.add(n);
  }
  return [...values].sort((a, b) => a - b);
}

/**
 * `--memory 128,256,512`: whole MB from 128 to 10,240, comma-separated;
 * returned ascending without repeats.
 * @throws BenchUsageError naming the value at fault.
 */
export function parseMemorySizes(raw: string): number[] {
  return parseWholeList(
    raw,
    'memory',
    { name: 'a Lambda memory size', item: 'size', unit: 'MB', example: '128,256,512,1024,1769' },
    LAMBDA_MEMORY_MB,
  );
}

/** Defaults: the workload the one-process targets were set on, sized for a few minutes on a 2-core machine. */
export const benchDefaults = {
  events: 5000,
  duplicateRate: 0.25,
  seed: 1,
  batch: 10,
  latencyMs: 0,
  warmup: 60,
  importSamples: 9,
  docs: 'docs/benchmarks.md',
  inFlight: '8,32,64',
} as const;

const cli = {
  usage: 'npm run bench -- [options]',
  helpCommand: 'npm run bench -- --help',
  summary: `Pushes one seeded SQS workload (business events, some delivered again under
new message ids) through the business write alone, AWS Powertools
idempotency + batch, and effectively-once (claim, transaction, state
machine), interleaved batch by batch on DynamoDB Local, and prints the
figures side by side. Starts DynamoDB Local itself unless DYNAMODB_ENDPOINT
is set. Also measures the cold-start weight of a minimal handler with each
library, and a lease-takeover correctness comparison. With --memory and / or
--lmi (root, cgroup v1): Lambda-shaped, each handler in a CPU-limited process
of its own, at a memory size's share of a vCPU or as a Lambda Managed
Instances environment, with the cold start per size and the cost per use case.`,
  flags: {
    events: { type: 'integer', help: 'unique business events; 500 for a quick run', default: benchDefaults.events, min: 1, max: 1_000_000 },
    'dup-rate': {
      type: 'number',
      help: 'extra deliveries per event, 0..10',
      default: benchDefaults.duplicateRate,
      min: 0,
      max: 10,
      value: 'R',
    },
    seed: { type: 'integer', help: 'workload seed, a non-negative integer', default: benchDefaults.seed, min: 0, max: 2 ** 32 - 1 },
    batch: { type: 'integer', help: 'records per SQS batch, 1..10000', default: benchDefaults.batch, min: 1, max: 10_000 },
    latency: {
      type: 'number',
      help: 'added before every DynamoDB request, 0..1000 ms',
      default: benchDefaults.latencyMs,
      min: 0,
      max: 1000,
      value: 'MS',
    },
    warmup: { type: 'integer', help: 'warm-up batches per variant, not measured', default: benchDefaults.warmup, min: 0, max: 100_000 },
    'import-samples': {
      type: 'integer',
      help: 'fresh-process imports per handler for the cold start',
      default: benchDefaults.importSamples,
      min: 1,
      max: 1000,
    },
    only: { type: 'string', help: `variants to run, each with the one it is compared with:\n${variantIds.join(', ')}`, value: 'a,b' },
    units: { type: 'boolean', help: 'also count capacity units (asks DynamoDB for them on every request; costs DynamoDB Local CPU)' },
    aws: {
      type: 'boolean',
      help: 'the AWS model (bench/aws-model.ts): every request takes at least a seeded Lambda-side latency\nfor its operation class; $ per million deliveries and Lambda ms at 256 MB; DynamoDB Local\nand the bench pinned to a core each (taskset)',
    },
    memory: {
      type: 'string',
      help: "the Lambda-shaped sweep: each variant in its own process limited to the memory size's share of a vCPU\n(memory / 1769 MB, a cgroup v1 CFS quota: needs root), one size after another, e.g. 128,256,512,1024,1769;\nwith a cold start per size and the power-tuning chart beside the docs",
      value: 'MB,MB',
    },
    'check-quota': { type: 'boolean', help: "with --memory: check each size's CPU quota with a 2 s busy loop, then stop" },
    lmi: {
      type: 'string',
      help: 'Lambda Managed Instances: each variant in an execution environment of that many vCPUs (cgroup quota),\na worker thread per vCPU, many invocations at once; records per vCPU-second, e.g. 1,2 (needs root)',
      value: 'N,N',
    },
    'in-flight': {
      type: 'string',
      help: `with --lmi: the invocations each environment keeps going at once (default ${benchDefaults.inFlight})`,
      value: 'N,N',
    },
    'no-cold-start': { type: 'boolean', help: 'skip the bundle and import-time figures (with --memory: the cold start per size)' },
    'no-correctness': { type: 'boolean', help: 'skip the lease-takeover comparison' },
    'no-priority': {
      type: 'boolean',
      help: "leave the bench at the machine's priority (by default, as root, it runs at nice -15 and its CPU groups\nat cpu.shares 29154, so other processes on the machine do not starve it; the quotas are unchanged)",
    },
    docs: {
      type: 'string',
      help: `write the Markdown report there (default ${benchDefaults.docs}; a run replaces only its own section)`,
      value: 'FILE',
    },
    'no-docs': { type: 'boolean', help: 'do not write the Markdown report' },
    json: { type: 'boolean', help: 'one JSON document on stdout instead of the table' },
  },
} as const;

export const usage = helpText(cli);

function variantList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const only = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const known = new Set(variantIds);
  const unknown = only.filter((id) => !known.has(id));
  if (unknown.length > 0)
    throw new BenchUsageError(`--only: unknown variant ${unknown.join(', ')} (known: ${variantIds.join(', ')}).`, 'only');
  if (only.length === 0) throw new BenchUsageError('--only needs at least one variant.', 'only');
  return only;
}

/** Parses argv (without node and script). @throws BenchUsageError on an unknown option or a bad value. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const parsed = parseFlags(cli, argv);
  if (parsed.help) return { ...parseBenchArgs([]), help: true };
  const values = parsed.values;
  if (values.docs !== undefined && values['no-docs']) throw new BenchUsageError('--docs and --no-docs exclude each other.', 'docs');
  if (values.docs !== undefined && values.docs.trim() === '') throw new BenchUsageError('--docs needs a file name.', 'docs');
  const memory = values.memory === undefined ? [] : parseMemorySizes(values.memory);
  if (values['check-quota'] && memory.length === 0)
    throw new BenchUsageError('--check-quota needs --memory (the sizes to check).', 'check-quota');
  const lmi =
    values.lmi === undefined ? [] : parseWholeList(values.lmi, 'lmi', { name: 'a vCPU count', item: 'count', example: '1,2' }, LMI_VCPUS);
  if (values['in-flight'] !== undefined && lmi.length === 0)
    throw new BenchUsageError('--in-flight needs --lmi (the environments that keep them in flight).', 'in-flight');
  const inFlight = parseWholeList(
    values['in-flight'] ?? benchDefaults.inFlight,
    'in-flight',
    { name: 'a number of invocations in flight', item: 'number', example: '8,32,64' },
    LMI_IN_FLIGHT,
  );
  if (values.aws && values.latency > 0)
    throw new BenchUsageError('--aws and --latency exclude each other (the AWS model draws each request its own latency).', 'latency');
  return {
    events: values.events,
    duplicateRate: values['dup-rate'],
    seed: values.seed,
    batch: values.batch,
    latencyMs: values.latency,
    warmup: values.warmup,
    importSamples: values['import-samples'],
    only: variantList(values.only),
    units: values.units,
    aws: values.aws,
    coldStart: !values['no-cold-start'],
    correctness: !values['no-correctness'],
    docs: values['no-docs'] ? undefined : (values.docs ?? benchDefaults.docs),
    json: values.json,
    memory,
    checkQuota: values['check-quota'],
    lmi,
    inFlight,
    priority: !values['no-priority'],
    help: false,
  };
}
