/**
 * Cold-start weight of a minimal SQS handler with ours vs with Powertools
 * idempotency + batch: the esbuild bundle (minified, AWS SDK external, as
 * Lambda's Node runtime provides it) and the time to import it in a fresh
 * Node process. The entries are `cold-start/ours-handler.ts` (the README's
 * claim handler on the main entry, no plug-ins: what the targets read) and
 * `cold-start/powertools-handler.ts`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { median } from './stats.js';

export type ColdStartSide = 'ours' | 'ours-main' | 'powertools';

/** The sides measured now ('ours-main' only appears in results from when a claim-only entry existed). */
type MeasuredSide = Exclude<ColdStartSide, 'ours-main'>;

/** Bytes a group of inputs (a package, or a folder of our sources) adds to the bundle. */
export interface BundlePart {
  readonly name: string;
  readonly bytes: number;
}

export interface BundleFigures {
  readonly side: ColdStartSide;
  readonly entry: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Largest first. */
  readonly parts: readonly BundlePart[];
  /** Modules left to the runtime (the AWS SDK, Node built-ins). */
  readonly externals: readonly string[];
  /** Median of `importSamples`: importing the bundle in a fresh process, SDK included. */
  readonly importMs: number;
  readonly importSamples: readonly number[];
  /** Median of `librarySamples`: the same with the SDK modules imported beforehand, so only the bundle's own code is timed. */
  readonly libraryImportMs: number;
  readonly librarySamples: readonly number[];
}

export interface ColdStartFigures {
  readonly esbuild: string;
  /** How the bundles were built, in words. */
  readonly build: string;
  readonly samples: number;
  /** The README's claim handler on the main entry: what the targets read (the claim-only entry in older results). */
  readonly ours: BundleFigures;
  /** The same handler on the main entry, in results from when `effectively-once/claim` existed. */
  readonly oursMain?: BundleFigures;
  readonly powertools: BundleFigures;
}

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

/** Where bundles go: under node_modules, so the child process resolves the external SDK like a deployed function would. */
export function outDir(root: string): string {
  const dir = join(root, 'node_modules', '.cache', 'effectively-once-bench');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A package name from a node_modules path, or our folder (`src/core`, `src/store`, ...) otherwise. */
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
export async function bundle(root: string, side: ColdStartSide): Promise<HandlerBundle> {
  const entry = join(root, 'bench', 'cold-start', `${side}-handler.ts`);
  const file = join(outDir(root), `${side}-handler.mjs`);
  const result = await build({
    entryPoints: [entry],
    outfile: file,
    ...BUNDLE_OPTIONS,
    absWorkingDir: root,
  });
  const output = result.metafile.outputs[relative(root, file)];
  if (output === undefined) throw new Error(`esbuild wrote no ${file}`);
  const code = readFileSync(file);
  const externals = [...new Set(output.imports.filter((i) => i.external).map((i) => i.path))].sort();
  return { file, bytes: code.length, gzipBytes: gzipSync(code).length, parts: parts(output), externals };
}

/**
 * Runs in the child: imports the `preload` modules untimed, then times the
 * bundle's import (its top level runs too: clients and middleware are built,
 * as in a Lambda init phase) and prints the milliseconds.
 */
const PROBE = `
const [bundle, ...preload] = process.argv.slice(1);
for (const m of preload) await import(m);
const started = performance.now();
await import(bundle);
process.stdout.write(String(performance.now() - started));
`;

function importOnce(root: string, file: string, preload: readonly string[]): number {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE, pathToFileURL(file).href, ...preload], {
    cwd: root,
    encoding: 'utf8',
    // A region keeps the SDK from looking for one; nothing is sent.
    env: { ...process.env, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
  });
  const ms = Number(child.stdout);
  if (child.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${file} failed (exit ${child.status}): ${child.stderr}`);
  return ms;
}

const SIDES = ['ours', 'powertools'] as const satisfies readonly MeasuredSide[];

/** Builds the bundles and times their import `samples` times each, rotating the order so noise hits every side alike. */
export async function measureColdStart(root: string, samples: number, progress: (line: string) => void): Promise<ColdStartFigures> {
  progress('cold start: bundling the handlers with esbuild');
  const built = {
    ours: await bundle(root, 'ours'),
    powertools: await bundle(root, 'powertools'),
  };
  const timings = {
    ours: { full: [] as number[], library: [] as number[] },
    powertools: { full: [] as number[], library: [] as number[] },
  };
  for (let i = 0; i < samples; i += 1) {
    const turn = i % SIDES.length;
    for (const side of [...SIDES.slice(turn), ...SIDES.slice(0, turn)]) {
      const b = built[side];
      timings[side].full.push(importOnce(root, b.file, []));
      timings[side].library.push(
        importOnce(
          root,
          b.file,
          b.externals.filter((e) => e.startsWith('@aws-sdk/')),
        ),
      );
    }
    progress(`cold start: import sample ${i + 1}/${samples}`);
  }
  const figures = (side: MeasuredSide): BundleFigures => {
    const { file: _file, ...b } = built[side];
    const t = timings[side];
    return {
      side,
      entry: `bench/cold-start/${side}-handler.ts`,
      ...b,
      importMs: median(t.full),
      importSamples: t.full,
      libraryImportMs: median(t.library),
      librarySamples: t.library,
    };
  };
  return {
    esbuild: esbuildVersion,
    build: BUILD_WORDS,
    samples,
    ours: figures('ours'),
    powertools: figures('powertools'),
  };
}
