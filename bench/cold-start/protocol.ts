/**
 * What a cold-start runner (runner.ts, in a fresh process) reports to the
 * bench (cold-start.ts): a line of its own among the handler's output.
 */

/** The line a cold-start runner prints its result on. */
export const COLD_RESULT_PREFIX = '@@eo-cold ';

/**
 * The environment variable that names the CPU group to move into between
 * the import and the first batch (its `cgroup.procs`): on-demand Lambda runs
 * init on a full vCPU and the invocations under the size's share.
 */
export const MOVE_AFTER_INIT = 'EO_BENCH_MOVE_AFTER_INIT';

/** What a cold-start runner measured in its fresh process, ms. */
export interface ColdRunnerResult {
  /** Node's start until the runner's first line. */
  readonly bootMs: number;
  readonly importMs: number;
  readonly firstBatchMs: number;
  /** CPU of the whole process so far. */
  readonly cpuMs: number;
  /** Records of the first batch reported failed (must be 0). */
  readonly failures: number;
}

/** The runner's result line from a process's output. */
export function parseColdResult(stdout: string): ColdRunnerResult | undefined {
  const line = stdout.split('\n').find((l) => l.startsWith(COLD_RESULT_PREFIX));
  return line === undefined ? undefined : (JSON.parse(line.slice(COLD_RESULT_PREFIX.length)) as ColdRunnerResult);
}
