/**
 * The parent's side of the handlers' worker processes: the worker bundle
 * (esbuild, AWS SDK external as Lambda's runtime provides it), one worker per
 * variant in its own CPU group, a batch in and a sample out at a time.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { outDir } from '../cold-start.js';
import type { Variant } from '../variants.js';
import type { Delivery } from '../workload.js';
import type { CpuGroup } from './cgroup.js';
import type { FromWorker, InitMessage, ToWorker, WorkerSample } from './protocol.js';
import { forkLimited, lambdaEnv, lambdaNodeFlags } from './runtime.js';

/**
 * Bundles bench/lambda/NAME.ts into NAME.mjs beside the cold-start bundles, as
 * a deployed function would be; not minified, so a stack trace reads.
 */
export async function bundleLambdaScript(
  root: string,
  name: string,
  options: Pick<BuildOptions, 'external' | 'banner'> = {},
): Promise<string> {
  const file = join(outDir(root), `${name}.mjs`);
  await build({
    entryPoints: [join(root, 'bench', 'lambda', `${name}.ts`)],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    absWorkingDir: root,
    logLevel: 'silent',
    ...options,
  });
  return file;
}

/** The worker (the variants, both libraries, Middy), with the AWS SDK external as Lambda's runtime provides it. */
export function bundleWorker(root: string): Promise<string> {
  return bundleLambdaScript(root, 'worker', {
    external: ['@aws-sdk/*'],
    // A bundled CommonJS dependency may call require(): give the ES module one.
    banner: { js: "import { createRequire as __eoCreateRequire } from 'node:module'; const require = __eoCreateRequire(import.meta.url);" },
  });
}

/** A handler's process at one memory size. */
export class HandlerWorker {
  readonly variant: Variant;
  readonly group: CpuGroup;
  readonly #child: ChildProcess;
  #waiting: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | undefined;
  #exited: string | undefined;

  private constructor(variant: Variant, group: CpuGroup, child: ChildProcess) {
    this.variant = variant;
    this.group = group;
    this.#child = child;
    child.on('message', (message: FromWorker) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.resolve(message);
    });
    child.on('exit', (code, signal) => {
      this.#exited = `the worker of ${variant.id} at ${group.memoryMb} MB exited (${signal ?? `code ${code}`})`;
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(new Error(this.#exited));
    });
    child.on('error', (err) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(err);
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Starts the worker in `group` (from its first instruction) and builds the handler in it. */
  static async start(bundleFile: string, variant: Variant, group: CpuGroup, init: Omit<InitMessage, 'type'>): Promise<HandlerWorker> {
    const child = forkLimited(bundleFile, group, { env: lambdaEnv(group.memoryMb), nodeFlags: lambdaNodeFlags(group.memoryMb) });
    const worker = new HandlerWorker(variant, group, child);
    try {
      const answer = await worker.#ask({ type: 'init', ...init });
      if (answer.type !== 'ready')
        throw new Error(`${variant.id} at ${group.memoryMb} MB: ${answer.type === 'failed' ? answer.error : answer.type}`);
      return worker;
    } catch (err) {
      worker.kill();
      throw err;
    }
  }

  #ask(message: ToWorker): Promise<FromWorker> {
    if (this.#exited !== undefined) return Promise.reject(new Error(this.#exited));
    if (this.#waiting !== undefined) return Promise.reject(new Error('one message at a time'));
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#child.send(message, (err) => {
        if (err !== null && err !== undefined) {
          this.#waiting = undefined;
          reject(err);
        }
      });
    });
  }

  /** One batch through the handler; its sample as measured inside the worker. */
  async batch(deliveries: readonly Delivery[], slice: number): Promise<{ sample: WorkerSample; error: string | undefined }> {
    const answer = await this.#ask({ type: 'batch', deliveries, slice });
    if (answer.type === 'sample') return { sample: answer.sample, error: answer.error };
    throw new Error(`${this.variant.id} at ${this.group.memoryMb} MB: ${answer.type === 'failed' ? answer.error : answer.type}`);
  }

  /** Asks the worker to stop, and kills it if it has not within `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.#exited !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    try {
      this.#child.send({ type: 'stop' } satisfies ToWorker);
    } catch {
      // The channel is closed already: the kill below ends it.
    }
    const timer = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Kills the worker now (on the way out of a failed or interrupted run). */
  kill(): void {
    if (this.#exited === undefined && this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}
