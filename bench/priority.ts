/**
 * The bench ahead of other processes on a shared machine. Linux's CFS shares
 * the CPU among the runnable entities of a group by weight: in the root cpu
 * cgroup every thread is one entity, weighted by its nice value (1,024 at
 * nice 0), and a child group is one entity weighted by its `cpu.shares`
 * (1,024 by default). So a run's CPU groups, one entity together, get 1 / (n
 * + 1) of a core against n busy threads of other sessions, and a size's quota
 * is then not what the handler gets: the run measures the neighbours. Two
 * things put the bench back in front, whatever the neighbours do:
 *
 * - the bench's own threads at nice -15 (weight 29,154), and every process
 *   it starts after (DynamoDB Local, the cold-start processes, the workers:
 *   a child takes its parent's nice value);
 * - the run's parent CPU group (`eo-bench-<pid>`) at `cpu.shares` 29,154, the
 *   same weight, which every group of the run sits under.
 *
 * Neither changes what a quota models: `cpu.cfs_quota_us` still caps each
 * group at its size's share of a vCPU; the weight only decides who runs when
 * more want to than there are cores, and Lambda gives a function its share
 * whatever the neighbours on the host do. Raising a priority needs root
 * (CAP_SYS_NICE), which `--memory` and `--lmi` need anyway; without it the
 * run goes on as it is and says so.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value the bench's threads get. */
export const BENCH_NICE = -15;

/** CFS's weight of a task at a nice value (the kernel's sched_prio_to_weight, nice -20 to 19). */
const PRIO_TO_WEIGHT = [
  88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277, 1024,
  820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
] as const;

/** CFS's weight of a thread at `nice` (-20..19): what `cpu.shares` a group needs to weigh as much. */
export function niceWeight(nice: number): number {
  const weight = PRIO_TO_WEIGHT[Math.round(nice) + 20];
  if (weight === undefined) throw new RangeError(`nice must be from -20 to 19, got ${nice}.`);
  return weight;
}

/** `cpu.shares` of the run's parent CPU group: as much as one of the bench's threads weighs. */
export const BENCH_CPU_SHARES = niceWeight(BENCH_NICE);

/** What was done, in words for the report; `raised` false when the priority could not be raised. */
export interface Priority {
  readonly raised: boolean;
  readonly words: string;
}

/** The thread ids of this process (Linux: /proc/self/task); just the process's own id elsewhere. */
function ownThreads(): number[] {
  try {
    return readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => Number.isInteger(tid) && tid > 0);
  } catch {
    return [process.pid];
  }
}

/**
 * Sets every thread of this process to {@link BENCH_NICE} (Linux's nice value
 * is per thread; the threads started later, and the child processes, inherit
 * it). Call it before anything is started. `cpuGroups`: the run will also put
 * its CPU groups at {@link BENCH_CPU_SHARES} (said in the words).
 */
export function raisePriority(
  options: { readonly cpuGroups: boolean },
  setNice: (tid: number, nice: number) => void = setPriority,
  threads: () => number[] = ownThreads,
): Priority {
  try {
    for (const tid of threads()) setNice(tid, BENCH_NICE);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return {
      raised: false,
      words: `the bench at the machine's priority (nice ${BENCH_NICE} was refused: ${code}; it needs root), so other processes may slow the run down`,
    };
  }
  const groups = options.cpuGroups
    ? `, the run's CPU groups at cpu.shares ${BENCH_CPU_SHARES.toLocaleString('en-US')} (the quotas unchanged)`
    : '';
  return {
    raised: true,
    words: `the bench and every process it starts at nice ${BENCH_NICE}${groups}: ahead of other processes on the machine`,
  };
}
