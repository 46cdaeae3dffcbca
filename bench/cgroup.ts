/**
 * The CPU a Lambda function gets at a memory size, enforced the way Lambda
 * enforces it: a CFS quota. Lambda gives one full vCPU at 1,769 MB and CPU in
 * proportion to memory below it; the bench puts each handler's process into
 * its own cgroup v1 `cpu` group with `cpu.cfs_quota_us` / `cpu.cfs_period_us`
 * = memory / 1,769 (one vCPU at 1,769 MB and above: the bench's processes
 * run on one core). DynamoDB Local stays outside every group: it stands for
 * AWS.
 *
 * Needs root and a cgroup v1 `cpu` hierarchy it may write (found in
 * /proc/mounts); where there is none, {@link openCpuGroups} says why with a
 * {@link CpuLimitUnavailableError}. The root folder is a parameter, so the
 * unit test runs the same writes against a temporary folder.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../scripts/shared/flags.js';
import { awsModel } from './aws-model.js';

/** The CFS period the groups use, µs (the kernel's default). */
export const CFS_PERIOD_US = 100_000;
/** The kernel refuses a quota under 1 ms. */
const MIN_QUOTA_US = 1000;
/** Every group the bench creates is named so, under one parent per run (`eo-bench-<pid>`). */
export const GROUP_PREFIX = 'eo-bench-';

/** `--memory` cannot limit the CPU on this machine: the message says why. Exit code 2, like a bad option. */
export class CpuLimitUnavailableError extends UsageError {
  constructor(reason: string) {
    super(
      `--memory: cannot limit each handler's CPU to its memory size's share: ${reason}. ` +
        'The sweep needs root and a writable cgroup v1 cpu hierarchy (cpu.cfs_quota_us); run without --memory for the one-process bench.',
      'memory',
    );
  }
}

/** The share of one vCPU Lambda gives `memoryMb`: memory / 1,769, at most one. */
export function cpuShare(memoryMb: number): number {
  return Math.min(1, memoryMb / awsModel.lambda.fullVcpuMemoryMb);
}

/** `cpu.cfs_quota_us` for `memoryMb` over a `periodUs` period: its share of the period, rounded; the whole period at 1,769 MB and above. */
export function cpuQuotaUs(memoryMb: number, periodUs: number = CFS_PERIOD_US): number {
  if (!Number.isFinite(memoryMb) || memoryMb <= 0) throw new RangeError(`memoryMb must be positive, got ${memoryMb}.`);
  return Math.max(MIN_QUOTA_US, Math.round(cpuShare(memoryMb) * periodUs));
}

/** What `cpu.stat` says about a group: how often and how long the quota held it back. */
export interface CpuStat {
  readonly periods: number;
  readonly throttledPeriods: number;
  readonly throttledMs: number;
}

/** Reads a cgroup v1 `cpu.stat` (`nr_periods`, `nr_throttled`, `throttled_time` in ns). */
export function parseCpuStat(text: string): CpuStat {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name !== undefined && value !== undefined) values.set(name, Number(value));
  }
  return {
    periods: values.get('nr_periods') ?? 0,
    throttledPeriods: values.get('nr_throttled') ?? 0,
    throttledMs: (values.get('throttled_time') ?? 0) / 1e6,
  };
}

/** One group: a quota and the processes in it. */
export interface CpuGroup {
  readonly name: string;
  readonly path: string;
  readonly memoryMb: number;
  readonly quotaUs: number;
  readonly periodUs: number;
  /** The file a process writes its pid to in order to join (the spawn wrapper does it before `exec node`). */
  readonly procsFile: string;
  /** Moves a running process into the group. */
  add(pid: number): void;
  /** The group's `cpu.stat` so far (zeros where there is none). */
  stat(): CpuStat;
}

/** How a group folder is removed: `rmdir` on a cgroup file system (the test's stand-in folder needs a recursive remove). */
export type RemoveFolder = (path: string) => void;

/** Where the cgroup v1 `cpu` controller is mounted, from /proc/mounts' text; undefined when there is none. */
export function cpuCgroupMount(mounts: string): string | undefined {
  for (const line of mounts.split('\n')) {
    const [, mountPoint, type, options] = line.split(' ');
    if (type === 'cgroup' && mountPoint !== undefined && (options ?? '').split(',').includes('cpu')) return mountPoint;
  }
  return undefined;
}

/** Why this machine cannot run the sweep, or undefined when it can (a probe group is created and removed). */
export function cpuLimitProblem(
  env: { platform: string; uid: number | undefined; mounts: () => string } = {
    platform: process.platform,
    uid: process.getuid?.(),
    mounts: () => readFileSync('/proc/mounts', 'utf8'),
  },
): { problem: string } | { root: string } {
  if (env.platform !== 'linux') return { problem: `cgroups are Linux's, this is ${env.platform}` };
  let mounts: string;
  try {
    mounts = env.mounts();
  } catch (err) {
    return { problem: `/proc/mounts cannot be read (${(err as Error).message})` };
  }
  const root = cpuCgroupMount(mounts);
  if (root === undefined) {
    const v2 = mounts.split('\n').some((l) => l.split(' ')[2] === 'cgroup2');
    return {
      problem: v2
        ? 'only cgroup v2 is mounted here (no cgroup v1 cpu controller; the bench writes v1 cpu.cfs_quota_us)'
        : 'no cgroup v1 cpu controller is mounted',
    };
  }
  if (env.uid !== 0) return { problem: `writing ${root} needs root, this process runs as uid ${env.uid ?? 'unknown'}` };
  return { root };
}

/** The run's groups under one parent folder; {@link CpuGroups.removeAll} takes every process out and removes them. */
export class CpuGroups {
  readonly root: string;
  readonly parent: string;
  readonly #groups: CpuGroup[] = [];
  readonly #remove: RemoveFolder;

  /**
   * @param root the cgroup v1 cpu hierarchy's root (`/sys/fs/cgroup/cpu`), or a folder standing in for it
   * @param runName this run's parent group, `eo-bench-<pid>` by default
   * @param shares the parent's `cpu.shares` (its weight against the machine's other processes); undefined: the kernel's 1,024
   */
  constructor(root: string, options: { runName?: string; remove?: RemoveFolder; shares?: number } = {}) {
    this.root = root;
    this.parent = join(root, options.runName ?? `${GROUP_PREFIX}${process.pid}`);
    this.#remove = options.remove ?? rmdirSync;
    try {
      mkdirSync(this.parent);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new CpuLimitUnavailableError(`${this.parent} cannot be created (${code ?? (err as Error).message})`);
    }
    if (options.shares !== undefined) this.#setShares(options.shares);
  }

  /**
   * The run's weight against the other processes of the machine when more want a core than there are
   * (priority.ts): every group of the run sits under the parent, so its `cpu.shares` is theirs together.
   */
  #setShares(shares: number): void {
    try {
      writeFileSync(join(this.parent, 'cpu.shares'), String(shares));
    } catch (err) {
      throw new CpuLimitUnavailableError(
        `${this.parent}/cpu.shares cannot be set (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }

  /**
   * A new group limited to `memoryMb`'s share of a vCPU, or with `vcpus` to
   * that many whole vCPUs (a Lambda Managed Instances environment: its memory
   * does not set its CPU).
   */
  create(name: string, memoryMb: number, options: { readonly periodUs?: number; readonly vcpus?: number } = {}): CpuGroup {
    const path = join(this.parent, name);
    const periodUs = options.periodUs ?? CFS_PERIOD_US;
    const quotaUs = options.vcpus === undefined ? cpuQuotaUs(memoryMb, periodUs) : Math.round(options.vcpus * periodUs);
    try {
      mkdirSync(path);
      // The period first: the kernel checks the quota against the period in force.
      writeFileSync(join(path, 'cpu.cfs_period_us'), String(periodUs));
      writeFileSync(join(path, 'cpu.cfs_quota_us'), String(quotaUs));
    } catch (err) {
      throw new CpuLimitUnavailableError(`${path} cannot be set up (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    const procsFile = join(path, 'cgroup.procs');
    const group: CpuGroup = {
      name,
      path,
      memoryMb,
      quotaUs,
      periodUs,
      procsFile,
      // One pid per write, appended (a cgroup file takes one pid per write; the stand-in folder keeps them all).
      add: (pid) => appendFileSync(procsFile, `${pid}\n`),
      stat: () => {
        try {
          return parseCpuStat(readFileSync(join(path, 'cpu.stat'), 'utf8'));
        } catch {
          return { periods: 0, throttledPeriods: 0, throttledMs: 0 };
        }
      },
    };
    this.#groups.push(group);
    return group;
  }

  /** Pids in a group (its `cgroup.procs`). */
  static pids(path: string): number[] {
    try {
      return readFileSync(join(path, 'cgroup.procs'), 'utf8')
        .split('\n')
        .map((l) => Number.parseInt(l, 10))
        .filter((n) => Number.isInteger(n) && n > 0);
    } catch {
      return [];
    }
  }

  /**
   * Removes one group: any process still in it is moved back to the root
   * group first (a cgroup with a process cannot be removed), then its folder.
   * Errors are collected, not thrown: this also runs on the way out of a failed run.
   */
  removeFolder(path: string, problems: string[] = []): string[] {
    for (const pid of CpuGroups.pids(path)) {
      try {
        appendFileSync(join(this.root, 'cgroup.procs'), `${pid}\n`);
      } catch {
        // The process has exited meanwhile (ESRCH): nothing to move.
      }
    }
    try {
      if (existsSync(path)) this.#remove(path);
    } catch (err) {
      problems.push(`${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return problems;
  }

  /** Removes one group now (its processes have exited or are moved out). */
  remove(group: CpuGroup): string[] {
    const problems: string[] = [];
    this.removeFolder(group.path, problems);
    const at = this.#groups.indexOf(group);
    if (at !== -1) this.#groups.splice(at, 1);
    return problems;
  }

  /** Removes every group and the run's parent; returns what could not be removed. Kill the workers first. */
  removeAll(): string[] {
    const problems: string[] = [];
    for (const g of this.#groups.splice(0)) this.removeFolder(g.path, problems);
    this.removeFolder(this.parent, problems);
    return problems;
  }
}

/**
 * Parents left by runs that died without cleaning up (`eo-bench-<pid>` whose
 * pid is gone): their empty groups are removed. Returns the names removed.
 */
export function removeStaleRuns(root: string, isAlive: (pid: number) => boolean, remove: RemoveFolder = rmdirSync): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of entries) {
    const pid = Number(name.slice(GROUP_PREFIX.length));
    if (!name.startsWith(GROUP_PREFIX) || !Number.isInteger(pid) || isAlive(pid)) continue;
    const parent = join(root, name);
    const stale = new CpuGroups(root, { runName: name, remove });
    try {
      for (const child of readdirSync(parent, { withFileTypes: true }))
        if (child.isDirectory()) stale.removeFolder(join(parent, child.name));
    } catch {
      continue;
    }
    if (stale.removeAll().length === 0) removed.push(name);
  }
  return removed;
}
