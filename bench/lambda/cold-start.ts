/**
 * Cold start at each memory size: the README's claim handler and Powertools'
 * equivalent (the bundles of bench/cold-start.ts), each imported and called
 * once with a batch of 10 fresh records in a fresh process that is in the
 * size's CPU group from its first instruction, with Lambda's heap flags for
 * the size. Init = import + first batch; median of the samples; the sides
 * alternate, the sizes one after another. The first batch goes to DynamoDB
 * Local without the latency floor: its CPU (first requests, connections, the
 * JIT) is what differs between the two.
 */
import { once } from 'node:events';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { version as esbuildVersion } from 'esbuild';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/dynamodb-local.js';
import { createTable } from '../../infra/tables.js';
import { sqsEvent, sqsRecord } from '../../src/testing/index.js';
import { BUILD_WORDS, bundle, type HandlerBundle } from '../cold-start.js';
import { oursTableDefinition, powertoolsTableDefinition } from '../dynamo.js';
import { median } from '../stats.js';
import type { CpuGroups } from './cgroup.js';
import { COLD_RESULT_PREFIX, type ColdRunnerResult } from './protocol.js';
import type { ColdStartAtSize, ColdStartBundle, ColdStartSideFigures, SweepColdStart } from './results.js';
import { lambdaEnv, lambdaNodeFlags, spawnLimited } from './runtime.js';
import { bundleLambdaScript } from './workers.js';

const SIDES = ['ours', 'powertools'] as const;
type Side = (typeof SIDES)[number];

/** Records in the first batch. */
const FIRST_BATCH = 10;

/** The first batch of one sample: 10 fresh order numbers, unique to the size, side and sample. */
function firstBatch(tag: string): string {
  return JSON.stringify(sqsEvent(Array.from({ length: FIRST_BATCH }, (_, i) => sqsRecord({ body: { orderNo: `cold-${tag}-${i + 1}` } }))));
}

/** The runner's result line from a process's output. */
export function parseColdResult(stdout: string): ColdRunnerResult | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(COLD_RESULT_PREFIX));
  return line === undefined ? undefined : (JSON.parse(line.slice(COLD_RESULT_PREFIX.length)) as ColdRunnerResult);
}

interface ColdRun {
  readonly root: string;
  readonly runner: string;
  readonly endpoint: string;
  readonly tables: Record<Side, string>;
}

async function sampleOnce(run: ColdRun, file: string, side: Side, memoryMb: number, group: ReturnType<CpuGroups['create']>, tag: string) {
  const child = spawnLimited([run.runner, file], group, {
    cwd: run.root,
    nodeFlags: lambdaNodeFlags(memoryMb),
    env: lambdaEnv(memoryMb, {
      IDEMPOTENCY_TABLE: run.tables[side],
      AWS_ENDPOINT_URL_DYNAMODB: run.endpoint,
      EO_BENCH_EVENT: firstBatch(tag),
    }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const result = parseColdResult(stdout);
  if (code !== 0 || result === undefined)
    throw new Error(`cold start of ${side} at ${memoryMb} MB failed (exit ${code}): ${stderr.trim() || stdout.trim()}`);
  if (result.failures > 0) throw new Error(`cold start of ${side} at ${memoryMb} MB: ${result.failures} records of the first batch failed`);
  return result;
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

function bundleFigures(side: Side, b: HandlerBundle): ColdStartBundle {
  return { entry: `bench/cold-start/${side}-handler.ts`, bytes: b.bytes, gzipBytes: b.gzipBytes, parts: b.parts };
}

/** Every size's cold start, `samples` fresh processes per side and size. */
export async function measureColdStartPerSize(options: {
  readonly root: string;
  readonly endpoint: string;
  readonly sizes: readonly number[];
  readonly samples: number;
  readonly groups: CpuGroups;
  readonly progress: (line: string) => void;
}): Promise<SweepColdStart> {
  const { root, endpoint, sizes, samples, groups, progress } = options;
  progress('cold start: bundling the handlers and the runner with esbuild');
  const bundles = { ours: await bundle(root, 'ours'), powertools: await bundle(root, 'powertools') };
  const runner = await bundleLambdaScript(root, 'cold-runner');
  const stamp = Date.now().toString(36);
  const tables = { ours: `bench-cold-${stamp}-ours`, powertools: `bench-cold-${stamp}-powertools` };
  const admin = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await createTable(admin, tables.ours, oursTableDefinition);
    await createTable(admin, tables.powertools, powertoolsTableDefinition);
  } finally {
    admin.destroy();
  }
  const run: ColdRun = { root, runner, endpoint, tables };
  const perSize: ColdStartAtSize[] = [];
  for (const memoryMb of sizes) {
    const results: Record<Side, ColdRunnerResult[]> = { ours: [], powertools: [] };
    for (let i = 0; i < samples; i += 1) {
      const turn = i % SIDES.length;
      for (const side of [...SIDES.slice(turn), ...SIDES.slice(0, turn)]) {
        // A group per process: one that inherited a group whose quota the previous process had spent would start throttled.
        const group = groups.create(`cold-${memoryMb}-${side}-${i}`, memoryMb);
        try {
          results[side].push(await sampleOnce(run, bundles[side].file, side, memoryMb, group, `${stamp}-${memoryMb}-${side}-${i}`));
        } finally {
          groups.remove(group);
        }
      }
    }
    const ours = sideFigures(results.ours);
    const powertools = sideFigures(results.powertools);
    perSize.push({ memoryMb, samples, ours, powertools, initRatio: ours.initMs / powertools.initMs });
    progress(
      `cold start at ${memoryMb} MB: ours ${ours.initMs.toFixed(0)} ms, Powertools ${powertools.initMs.toFixed(0)} ms (import + first batch, median of ${samples})`,
    );
  }
  return {
    build: BUILD_WORDS,
    esbuild: esbuildVersion,
    ours: bundleFigures('ours', bundles.ours),
    powertools: bundleFigures('powertools', bundles.powertools),
    sizes: perSize,
  };
}
