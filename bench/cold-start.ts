/**
 * Cold start: the README's claim handler (cold-start/ours-handler.ts, the
 * main entry, no plug-ins) against Powertools' equivalent
 * (cold-start/powertools-handler.ts), bundled as a deployed function is
 * (esbuild, minified, AWS SDK external as Lambda's Node runtime provides it).
 *
 * - **Bundles**: bytes, gzip bytes, bytes by package / folder (esbuild's metafile).
 * - **Import, step by step**: a fresh process per sample imports the SDK
 *   modules the bundle leaves external one by one, then the bundle (its top
 *   level runs: clients and middleware are built, as in a Lambda init), and
 *   times each step: what each module costs apart. At full CPU: one core (a
 *   CPU group of one vCPU) when the machine's groups are at hand, else no
 *   limit.
 * - **Per memory size** (the Lambda-shaped sweep): a fresh process per
 *   sample imports the bundle and runs a first batch of 10 fresh records,
 *   two ways. On demand, Lambda runs init on a full, unthrottled vCPU: the
 *   process starts in a one-vCPU group and moves itself into the size's
 *   group between the import and the first batch. With provisioned
 *   concurrency there is no burst: the process is in the size's group from
 *   its first instruction. Init = import + first batch; median per side.
 *
 * Samples alternate between the sides (and modes), so the machine's load
 * hits them alike.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { build, version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../infra/dynamodb-local.js';
import { createTable } from '../infra/tables.js';
import { sqsEvent, sqsRecord } from '../src/testing/index.js';
import { awsModel } from './aws-model.js';
import { bundleScript, outDir } from './bundle.js';
import { MOVE_AFTER_INIT, parseColdResult, type ColdRunnerResult } from './cold-start/protocol.js';
import { oursTableDefinition, powertoolsTableDefinition } from './dynamo.js';
import type { CpuGroup, CpuGroups } from './cgroup.js';
import { lambdaEnv, lambdaNodeFlags, runToEnd, spawnLimited } from './lambda-runtime.js';
import type {
  BundlePart,
  ColdStartAtSize,
  ColdStartFigures,
  ColdStartPair,
  ColdStartSideFigures,
  HandlerColdStart,
  ImportStep,
} from './results.js';
import { median } from './stats.js';

export const BUILD_WORDS = 'esbuild bundle, minify, platform node, format esm, target node22, external @aws-sdk/*';

/** How the handlers are bundled, as `BUILD_WORDS` says (shared with test/unit/claim-bundle.test.ts). */
export const BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  external: ['@aws-sdk/*'],
  metafile: true,
  logLevel: 'silent',
} as const satisfies BuildOptions;

const SIDES = ['ours', 'powertools'] as const;
type Side = (typeof SIDES)[number];

/** A package name from a node_modules path, or our folder (`src/batch`, `src/stores`, ...) otherwise. */
export function partName(input: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (pkg?.[1] !== undefined) return pkg[1];
  if (input.startsWith('bench/')) return 'handler entry';
  const segments = input.split('/');
  return segments.length > 2 ? segments.slice(0, 2).join('/') : input;
}

function parts(output: Metafile['outputs'][string]): BundlePart[] {
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = partName(input);
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes.entries()]
    .map(([name, n]) => ({ name, bytes: n }))
    .filter((p) => p.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

/** A handler's bundle: the file, its size, what it is made of and what it leaves to the runtime. */
export interface HandlerBundle {
  readonly file: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly parts: BundlePart[];
  readonly externals: string[];
}

/** Bundles `cold-start/<side>-handler.ts` as `BUILD_WORDS` says, into the bench's cache folder. */
export async function bundle(root: string, side: Side): Promise<HandlerBundle> {
  const entry = join(root, 'bench', 'cold-start', `${side}-handler.ts`);
  const file = join(outDir(root), `${side}-handler.mjs`);
  const result = await build({ entryPoints: [entry], outfile: file, ...BUNDLE_OPTIONS, absWorkingDir: root });
  const output = result.metafile.outputs[relative(root, file)];
  if (output === undefined) throw new Error(`esbuild wrote no ${file}`);
  const code = readFileSync(file);
  const externals = [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))].sort();
  return { file, bytes: code.length, gzipBytes: gzipSync(code).length, parts: parts(output), externals };
}

/** The SDK modules a bundle leaves to the runtime, in import order: the low-level client first (the others build on it). */
export function sdkSteps(externals: readonly string[]): string[] {
  const sdk = externals.filter((e) => e.startsWith('@aws-sdk/'));
  const first = '@aws-sdk/client-dynamodb';
  return [...sdk.filter((m) => m === first), ...sdk.filter((m) => m !== first)];
}

/**
 * Runs in the child: imports each module named after the bundle in turn, then
 * the bundle, and prints the ms of each step as a JSON array.
 */
const STEPS_PROBE = `
const [bundle, ...modules] = process.argv.slice(1);
const ms = [];
for (const m of [...modules, bundle]) {
  const started = performance.now();
  await import(m);
  ms.push(performance.now() - started);
}
process.stdout.write(JSON.stringify(ms));
`;

/** Region and credentials keep the SDK from looking for them; nothing is sent. */
const QUIET_SDK = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' } as const;

async function timeSteps(root: string, file: string, modules: readonly string[], group: CpuGroup | undefined): Promise<number[]> {
  const child = spawnLimited(['--input-type=module', '-e', STEPS_PROBE, pathToFileURL(file).href, ...modules], group, {
    cwd: root,
    env: { ...process.env, ...QUIET_SDK },
    nodeFlags: [],
  });
  const { code, stdout, stderr } = await runToEnd(child);
  const ms = code === 0 ? (JSON.parse(stdout) as number[]) : [];
  if (ms.length !== modules.length + 1) throw new Error(`importing ${file} step by step failed (exit ${code}): ${stderr}`);
  return ms;
}

/** Where the full-CPU processes run: a group of one vCPU (one core's worth) when there are groups, else unlimited. */
interface FullCpu {
  readonly words: string;
  readonly group: (name: string) => CpuGroup | undefined;
  readonly release: (group: CpuGroup | undefined) => void;
}

function fullCpu(groups: CpuGroups | undefined): FullCpu {
  if (groups === undefined) return { words: 'no CPU limit (all of the machine)', group: () => undefined, release: () => {} };
  return {
    words: `one vCPU: a CPU group with quota ${awsModel.lambda.fullVcpuMemoryMb} MB's share (one full period)`,
    group: (name) => groups.create(name, awsModel.lambda.fullVcpuMemoryMb),
    release: (group) => {
      if (group !== undefined) groups.remove(group);
    },
  };
}

/** Each side's import, step by step, `samples` fresh processes per side. */
async function measureImports(
  root: string,
  built: Record<Side, HandlerBundle>,
  samples: number,
  full: FullCpu,
  progress: (line: string) => void,
): Promise<Record<Side, ImportStep[]>> {
  const modules = { ours: sdkSteps(built.ours.externals), powertools: sdkSteps(built.powertools.externals) };
  const timings: Record<Side, number[][]> = { ours: [], powertools: [] };
  for (let i = 0; i < samples; i += 1) {
    for (const side of rotate(SIDES, i)) {
      const group = full.group(`import-${side}-${i}`);
      try {
        timings[side].push(await timeSteps(root, built[side].file, modules[side], group));
      } finally {
        full.release(group);
      }
    }
    progress(`cold start: import sample ${i + 1}/${samples}`);
  }
  const steps = (side: Side): ImportStep[] =>
    [...modules[side], 'bundle'].map((module, step) => {
      const values = timings[side].map((t) => t[step] ?? Number.NaN);
      return { module, ms: median(values), samples: values };
    });
  return { ours: steps('ours'), powertools: steps('powertools') };
}

/** `items` rotated by `i`: the first item changes from one sample to the next. */
function rotate<T>(items: readonly T[], i: number): T[] {
  const turn = i % items.length;
  return [...items.slice(turn), ...items.slice(0, turn)];
}

function handlerFigures(side: Side, b: HandlerBundle, steps: readonly ImportStep[]): HandlerColdStart {
  const perSample = steps[0]?.samples.map((_, i) => steps.reduce((sum, s) => sum + (s.samples[i] ?? Number.NaN), 0)) ?? [];
  return {
    side,
    entry: `bench/cold-start/${side}-handler.ts`,
    bytes: b.bytes,
    gzipBytes: b.gzipBytes,
    parts: b.parts,
    externals: b.externals,
    importMs: median(perSample),
    libraryImportMs: steps.at(-1)?.ms ?? Number.NaN,
    steps,
  };
}

/** The sweep's part: DynamoDB Local for the first batch, the sizes and the machine's CPU groups. */
export interface ColdStartAtSizes {
  readonly endpoint: string;
  readonly sizes: readonly number[];
  readonly groups: CpuGroups;
}

/**
 * Bundles, the import step by step at full CPU (one vCPU's group with
 * `groups`, else no limit), and (with `atSizes`) the cold start per size, on
 * demand and provisioned.
 */
export async function measureColdStart(options: {
  readonly root: string;
  readonly samples: number;
  readonly progress: (line: string) => void;
  readonly groups?: CpuGroups;
  readonly atSizes?: ColdStartAtSizes;
}): Promise<ColdStartFigures> {
  const { root, samples, progress, atSizes } = options;
  progress('cold start: bundling the handlers with esbuild');
  const built = { ours: await bundle(root, 'ours'), powertools: await bundle(root, 'powertools') };
  const full = fullCpu(options.groups ?? atSizes?.groups);
  const steps = await measureImports(root, built, samples, full, progress);
  const sizes = atSizes === undefined ? [] : await measurePerSize(root, built, samples, full, atSizes, progress);
  return {
    esbuild: esbuildVersion,
    build: BUILD_WORDS,
    samples,
    fullCpu: full.words,
    ours: handlerFigures('ours', built.ours, steps.ours),
    powertools: handlerFigures('powertools', built.powertools, steps.powertools),
    sizes,
  };
}

// ---- per memory size ---------------------------------------------------------

const MODES = ['on-demand', 'provisioned'] as const;
type Mode = (typeof MODES)[number];

/** Records in the first batch. */
const FIRST_BATCH = 10;

/** The first batch of one sample: 10 fresh order numbers, unique to the size, side, mode and sample. */
function firstBatch(tag: string): string {
  return JSON.stringify(sqsEvent(Array.from({ length: FIRST_BATCH }, (_, i) => sqsRecord({ body: { orderNo: `cold-${tag}-${i + 1}` } }))));
}

interface SizeRun {
  readonly root: string;
  readonly runner: string;
  readonly endpoint: string;
  readonly tables: Record<Side, string>;
  readonly stamp: string;
  readonly groups: CpuGroups;
  readonly full: FullCpu;
  readonly files: Record<Side, string>;
}

/**
 * One fresh process: on demand it starts in a one-vCPU group and moves into
 * the size's before the first batch; provisioned it is in the size's group
 * from its start. A group per process: one that inherited a group whose quota
 * the previous process had spent would start throttled.
 */
async function sampleOnce(run: SizeRun, side: Side, mode: Mode, memoryMb: number, i: number): Promise<ColdRunnerResult> {
  const tag = `${run.stamp}-${memoryMb}-${mode}-${side}-${i}`;
  const sized = run.groups.create(`cold-${memoryMb}-${mode}-${side}-${i}`, memoryMb);
  const init = mode === 'on-demand' ? run.full.group(`cold-${memoryMb}-${mode}-${side}-${i}-init`) : undefined;
  try {
    const child = spawnLimited([run.runner, run.files[side]], init ?? sized, {
      cwd: run.root,
      nodeFlags: lambdaNodeFlags(memoryMb),
      env: lambdaEnv(memoryMb, {
        IDEMPOTENCY_TABLE: run.tables[side],
        AWS_ENDPOINT_URL_DYNAMODB: run.endpoint,
        EO_BENCH_EVENT: firstBatch(tag),
        [MOVE_AFTER_INIT]: init === undefined ? '' : sized.procsFile,
      }),
    });
    const { code, stdout, stderr } = await runToEnd(child);
    const result = parseColdResult(stdout);
    const where = `cold start (${mode}) of ${side} at ${memoryMb} MB`;
    if (code !== 0 || result === undefined) throw new Error(`${where} failed (exit ${code}): ${stderr.trim() || stdout.trim()}`);
    if (result.failures > 0) throw new Error(`${where}: ${result.failures} records of the first batch failed`);
    return result;
  } finally {
    run.full.release(init);
    run.groups.remove(sized);
  }
}

function sideFigures(results: readonly ColdRunnerResult[]): ColdStartSideFigures {
  const init = results.map((r) => r.importMs + r.firstBatchMs);
  return {
    initMs: median(init),
    importMs: median(results.map((r) => r.importMs)),
    firstBatchMs: median(results.map((r) => r.firstBatchMs)),
    bootMs: median(results.map((r) => r.bootMs)),
    cpuMs: median(results.map((r) => r.cpuMs)),
    initSamples: init,
  };
}

function pair(results: Record<Side, ColdRunnerResult[]>): ColdStartPair {
  const ours = sideFigures(results.ours);
  const powertools = sideFigures(results.powertools);
  return { ours, powertools, initRatio: ours.initMs / powertools.initMs };
}

async function createColdTables(endpoint: string, stamp: string): Promise<Record<Side, string>> {
  const tables = { ours: `bench-cold-${stamp}-ours`, powertools: `bench-cold-${stamp}-powertools` };
  const admin = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await createTable(admin, tables.ours, oursTableDefinition);
    await createTable(admin, tables.powertools, powertoolsTableDefinition);
  } finally {
    admin.destroy();
  }
  return tables;
}

async function measurePerSize(
  root: string,
  built: Record<Side, HandlerBundle>,
  samples: number,
  full: FullCpu,
  at: ColdStartAtSizes,
  progress: (line: string) => void,
): Promise<ColdStartAtSize[]> {
  progress('cold start: bundling the runner with esbuild');
  const stamp = Date.now().toString(36);
  const run: SizeRun = {
    root,
    runner: await bundleScript(root, 'cold-start/runner.ts', 'cold-runner'),
    endpoint: at.endpoint,
    tables: await createColdTables(at.endpoint, stamp),
    stamp,
    groups: at.groups,
    full,
    files: { ours: built.ours.file, powertools: built.powertools.file },
  };
  const combos = MODES.flatMap((mode) => SIDES.map((side) => ({ mode, side })));
  const perSize: ColdStartAtSize[] = [];
  for (const memoryMb of at.sizes) {
    const results: Record<Mode, Record<Side, ColdRunnerResult[]>> = {
      'on-demand': { ours: [], powertools: [] },
      provisioned: { ours: [], powertools: [] },
    };
    for (let i = 0; i < samples; i += 1)
      for (const { mode, side } of rotate(combos, i)) results[mode][side].push(await sampleOnce(run, side, mode, memoryMb, i));
    const onDemand = pair(results['on-demand']);
    const provisioned = pair(results.provisioned);
    perSize.push({ memoryMb, samples, onDemand, provisioned });
    progress(
      `cold start at ${memoryMb} MB (import + first batch, median of ${samples}): on demand ours ${onDemand.ours.initMs.toFixed(0)} ms, ` +
        `Powertools ${onDemand.powertools.initMs.toFixed(0)} ms; provisioned ours ${provisioned.ours.initMs.toFixed(0)} ms, Powertools ${provisioned.powertools.initMs.toFixed(0)} ms`,
    );
  }
  return perSize;
}
