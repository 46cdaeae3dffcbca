/**
 * A Node process started as Lambda's Node.js runtime starts one at a memory
 * size: the V8 heap flags its bootstrap script derives from
 * `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` (new space a tenth of the memory, each
 * semi-space half of that, old space the rest), that variable set, and the
 * process inside its CPU group from its first instruction: a `sh` wrapper
 * writes its own pid into the group's `cgroup.procs`, then `exec`s node, so
 * Node's own start-up already runs under the quota.
 */
import { type ChildProcess, fork, type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';
import type { CpuGroup } from './cgroup.js';

/** The heap flags Lambda's Node.js runtime bootstrap passes at `memoryMb` (integer MB, as its shell arithmetic). */
export function lambdaNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  const semiSpace = Math.floor(newSpace / 2);
  return [`--max-semi-space-size=${semiSpace}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/**
 * The environment Lambda gives a function at `memoryMb`, over the bench's own (region and credentials for the local
 * endpoint). `AWS_LAMBDA_MAX_CONCURRENCY` only where `extra` sets it (a Managed Instances environment): inherited from
 * the shell, it would tell the library every worker runs on Managed Instances.
 */
export function lambdaEnv(memoryMb: number, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const { AWS_LAMBDA_MAX_CONCURRENCY: _managedInstances, ...inherited } = process.env;
  return {
    ...inherited,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    ...extra,
  };
}

/**
 * `sh -c` script: join the group named by `$EO_BENCH_CGROUP_PROCS`, then
 * become node (`$EO_BENCH_NODE`) with the rest of the arguments ($0 is the
 * first of them: how `fork` hands its module path to a custom exec path).
 */
const JOIN_THEN_EXEC = 'echo $$ >> "$EO_BENCH_CGROUP_PROCS" && exec "$EO_BENCH_NODE" "$0" "$@"';

function wrapperEnv(group: CpuGroup, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, EO_BENCH_CGROUP_PROCS: group.procsFile, EO_BENCH_NODE: process.execPath };
}

/**
 * Forks `modulePath` (a bundled .mjs) with an IPC channel, in `group` from
 * its start. `fork` runs `execPath execArgv... modulePath args...`; with
 * `sh -c SCRIPT` as that, the script sees the node flags and the module as
 * `$0 "$@"`, joins the group and execs node (the IPC descriptor survives the exec).
 */
export function forkLimited(
  modulePath: string,
  group: CpuGroup,
  options: { readonly env: NodeJS.ProcessEnv; readonly nodeFlags: readonly string[] },
): ChildProcess {
  const [first, ...rest] = [...options.nodeFlags, modulePath];
  return fork(first ?? modulePath, rest, {
    execPath: '/bin/sh',
    execArgv: ['-c', JOIN_THEN_EXEC],
    env: wrapperEnv(group, options.env),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
}

/** Spawns `node nodeFlags... args...` in `group` from its start (no group: no limit), stdout and stderr piped. */
export function spawnLimited(
  args: readonly string[],
  group: CpuGroup | undefined,
  options: { readonly env: NodeJS.ProcessEnv; readonly nodeFlags: readonly string[]; readonly cwd?: string },
): ChildProcess {
  const [first, ...rest] = [...options.nodeFlags, ...args];
  if (first === undefined) throw new Error('spawnLimited needs a script');
  const where: SpawnOptions = { stdio: ['ignore', 'pipe', 'pipe'], ...(options.cwd === undefined ? {} : { cwd: options.cwd }) };
  if (group === undefined) return spawn(process.execPath, [first, ...rest], { env: options.env, ...where });
  return spawn('/bin/sh', ['-c', JOIN_THEN_EXEC, first, ...rest], { env: wrapperEnv(group, options.env), ...where });
}

/** Waits for a spawned process to exit; its exit code and what it wrote. */
export async function runToEnd(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
