/**
 * The parent's side of the processes that run the handlers: the bundles
 * (esbuild, AWS SDK external as Lambda's runtime provides it), a child in
 * its own CPU group spoken to one message at a time over IPC, and the
 * sweep's worker (one variant at one memory size: a batch in, a sample out).
 */
import type { ChildProcess } from 'node:child_process';
import { bundleScript } from '../bundle.js';
import type { Variant } from '../variants.js';
import type { Delivery } from '../workload.js';
import type { CpuGroup } from '../cgroup.js';
import type { FromWorker, InitMessage, ToWorker, WorkerSample } from './protocol.js';
import { forkLimited, lambdaEnv, lambdaNodeFlags } from '../lambda-runtime.js';

/** The sweep's worker (the variants, both libraries, Middy), with the AWS SDK external as Lambda's runtime provides it. */
export function bundleWorker(root: string): Promise<string> {
  return bundleScript(root, 'lambda/worker.ts', 'worker', { sdkExternal: true });
}

/** A message with a `type`, as the children and the parent exchange them. */
interface Typed {
  readonly type: string;
}

/** A forked child answering one message at a time; its exit fails the question waiting for an answer. */
export class IpcChild<To extends Typed, From extends Typed> {
  readonly label: string;
  readonly #child: ChildProcess;
  #waiting: { resolve: (m: From) => void; reject: (e: Error) => void } | undefined;
  #exited: string | undefined;

  constructor(label: string, child: ChildProcess) {
    this.label = label;
    this.#child = child;
    const settle = (outcome: { message: From } | { error: Error }) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if ('message' in outcome) waiting?.resolve(outcome.message);
      else waiting?.reject(outcome.error);
    };
    child.on('message', (message: From) => settle({ message }));
    child.on('exit', (code, signal) => {
      this.#exited = `${label} exited (${signal ?? `code ${code}`})`;
      settle({ error: new Error(this.#exited) });
    });
    child.on('error', (error) => settle({ error }));
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Sends `message` and waits for the answer. */
  ask(message: To): Promise<From> {
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

  /** Asks the child to stop (`stop` message), and kills it if it has not within `graceMs`. */
  async stop(stop: To, graceMs = 5000): Promise<void> {
    if (this.#exited !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    try {
      this.#child.send(stop);
    } catch {
      // The channel is closed already: the kill below ends it.
    }
    const timer = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /** Kills the child now (on the way out of a failed or interrupted run). */
  kill(): void {
    if (this.#exited === undefined && this.#child.exitCode === null) this.#child.kill('SIGKILL');
  }
}

/** What the parent can stop on the way out: a handler's worker or an execution environment. */
export interface Stoppable {
  kill(): void;
}

/** A handler's process at one memory size. */
export class HandlerWorker implements Stoppable {
  readonly variant: Variant;
  readonly group: CpuGroup;
  readonly #ipc: IpcChild<ToWorker, FromWorker>;

  private constructor(variant: Variant, group: CpuGroup, ipc: IpcChild<ToWorker, FromWorker>) {
    this.variant = variant;
    this.group = group;
    this.#ipc = ipc;
  }

  /** Starts the worker in `group` (from its first instruction) and builds the handler in it. */
  static async start(bundleFile: string, variant: Variant, group: CpuGroup, init: Omit<InitMessage, 'type'>): Promise<HandlerWorker> {
    const child = forkLimited(bundleFile, group, { env: lambdaEnv(group.memoryMb), nodeFlags: lambdaNodeFlags(group.memoryMb) });
    const worker = new HandlerWorker(variant, group, new IpcChild(`the worker of ${variant.id} at ${group.memoryMb} MB`, child));
    try {
      const answer = await worker.#ipc.ask({ type: 'init', ...init });
      if (answer.type !== 'ready') throw new Error(`${worker.#ipc.label}: ${answer.type === 'failed' ? answer.error : answer.type}`);
      return worker;
    } catch (err) {
      worker.kill();
      throw err;
    }
  }

  /** One batch through the handler; its sample as measured inside the worker. */
  async batch(deliveries: readonly Delivery[], slice: number): Promise<{ sample: WorkerSample; error: string | undefined }> {
    const answer = await this.#ipc.ask({ type: 'batch', deliveries, slice });
    if (answer.type === 'sample') return { sample: answer.sample, error: answer.error };
    throw new Error(`${this.#ipc.label}: ${answer.type === 'failed' ? answer.error : answer.type}`);
  }

  stop(): Promise<void> {
    return this.#ipc.stop({ type: 'stop' });
  }

  kill(): void {
    this.#ipc.kill();
  }
}
