import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../scripts/shared/flags.js';
import {
  CpuGroups,
  CpuLimitUnavailableError,
  cpuCgroupMount,
  cpuLimitProblem,
  cpuQuotaUs,
  cpuShare,
  parseCpuStat,
  removeStaleRuns,
} from '../../../bench/cgroup.js';
import { lambdaEnv, lambdaNodeFlags } from '../../../bench/lambda-runtime.js';
import { BENCH_CPU_SHARES } from '../../../bench/priority.js';

describe('cpuQuotaUs', () => {
  it('gives each size its share of a 100 ms period: memory / 1,769 of one vCPU, rounded', () => {
    expect(cpuQuotaUs(128)).toBe(7236);
    expect(cpuQuotaUs(256)).toBe(14471);
    expect(cpuQuotaUs(512)).toBe(28943);
    expect(cpuQuotaUs(1024)).toBe(57886);
    expect(cpuShare(1024)).toBeCloseTo(0.5789, 4);
  });

  it('gives the whole period at 1,769 MB and above (one vCPU)', () => {
    expect(cpuQuotaUs(1769)).toBe(100_000);
    expect(cpuQuotaUs(3008)).toBe(100_000);
    expect(cpuQuotaUs(10_240)).toBe(100_000);
    expect(cpuQuotaUs(1769, 50_000)).toBe(50_000);
  });

  it('scales with another period and refuses a size that is not positive', () => {
    expect(cpuQuotaUs(256, 20_000)).toBe(2894);
    expect(() => cpuQuotaUs(0)).toThrow(RangeError);
    expect(() => cpuQuotaUs(Number.NaN)).toThrow(RangeError);
  });
});

describe('lambdaNodeFlags', () => {
  it("derives the heap flags as Lambda's Node.js bootstrap does: new space a tenth, semi-space half of it, old space the rest", () => {
    expect(lambdaNodeFlags(128)).toEqual(['--max-semi-space-size=6', '--max-old-space-size=116']);
    expect(lambdaNodeFlags(1769)).toEqual(['--max-semi-space-size=88', '--max-old-space-size=1593']);
  });
});

describe('lambdaEnv', () => {
  it('sets the memory size, and AWS_LAMBDA_MAX_CONCURRENCY only for a Managed Instances environment (never from the shell)', () => {
    const before = process.env['AWS_LAMBDA_MAX_CONCURRENCY'];
    process.env['AWS_LAMBDA_MAX_CONCURRENCY'] = '64';
    try {
      const sweep = lambdaEnv(1024);
      expect(sweep['AWS_LAMBDA_FUNCTION_MEMORY_SIZE']).toBe('1024');
      expect(sweep).not.toHaveProperty('AWS_LAMBDA_MAX_CONCURRENCY');
      expect(lambdaEnv(4096, { AWS_LAMBDA_MAX_CONCURRENCY: '8' })['AWS_LAMBDA_MAX_CONCURRENCY']).toBe('8');
    } finally {
      if (before === undefined) delete process.env['AWS_LAMBDA_MAX_CONCURRENCY'];
      else process.env['AWS_LAMBDA_MAX_CONCURRENCY'] = before;
    }
  });
});

describe('parseCpuStat', () => {
  it('reads periods, throttled periods and the throttled time (ns → ms)', () => {
    const text = 'nr_periods 79\nnr_throttled 76\nthrottled_time 6013396297\nnr_bursts 0\nburst_time 0\n';
    expect(parseCpuStat(text)).toEqual({ periods: 79, throttledPeriods: 76, throttledMs: 6013.396297 });
    expect(parseCpuStat('')).toEqual({ periods: 0, throttledPeriods: 0, throttledMs: 0 });
  });
});

describe('where the cpu controller is', () => {
  const v1 = [
    'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
    'cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0',
    'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
    'cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0',
  ].join('\n');
  const v2 = 'cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime 0 0';

  it('finds the cgroup v1 mount whose options name cpu (not cpuacct or cpuset alone)', () => {
    expect(cpuCgroupMount(v1)).toBe('/sys/fs/cgroup/cpu');
    expect(cpuCgroupMount('cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0')).toBe('/sys/fs/cgroup/cpu,cpuacct');
    expect(cpuCgroupMount(v2)).toBeUndefined();
  });

  it('says why the sweep cannot run: not Linux, cgroup v2 only, no controller, not root', () => {
    const env = (over: Partial<{ platform: string; uid: number | undefined; mounts: () => string }>) => ({
      platform: 'linux',
      uid: 0,
      mounts: () => v1,
      ...over,
    });
    expect(cpuLimitProblem(env({}))).toEqual({ root: '/sys/fs/cgroup/cpu' });
    expect(cpuLimitProblem(env({ platform: 'darwin' }))).toEqual({ problem: "cgroups are Linux's, this is darwin" });
    expect(cpuLimitProblem(env({ mounts: () => v2 }))).toEqual({
      problem: expect.stringContaining('only cgroup v2 is mounted') as string,
    });
    expect(cpuLimitProblem(env({ mounts: () => '' }))).toEqual({ problem: 'no cgroup v1 cpu controller is mounted' });
    expect(cpuLimitProblem(env({ uid: 1000 }))).toEqual({
      problem: expect.stringContaining('needs root, this process runs as uid 1000') as string,
    });
  });

  it('is a usage error (exit code 2) that names --memory and the reason', () => {
    const err = new CpuLimitUnavailableError('only cgroup v2 is mounted here');
    expect(err).toBeInstanceOf(UsageError);
    expect(err.option).toBe('memory');
    expect(err.message).toContain('--memory: cannot limit');
    expect(err.message).toContain('only cgroup v2 is mounted here');
  });
});

describe('CpuGroups on a folder standing in for /sys/fs/cgroup/cpu', () => {
  let root: string;
  const removeRecursive = (path: string) => rmSync(path, { recursive: true });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'eo-cgroup-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("creates the run's parent and a group per size with the period, then the quota", () => {
    const groups = new CpuGroups(root, { runName: 'eo-bench-42', remove: removeRecursive });
    const group = groups.create('256-powertools', 256);
    expect(group.path).toBe(join(root, 'eo-bench-42', '256-powertools'));
    expect(readFileSync(join(group.path, 'cpu.cfs_period_us'), 'utf8')).toBe('100000');
    expect(readFileSync(join(group.path, 'cpu.cfs_quota_us'), 'utf8')).toBe('14471');
    expect(group.quotaUs).toBe(14471);
    expect(group.procsFile).toBe(join(group.path, 'cgroup.procs'));
  });

  it("gives the run's parent the cpu.shares asked for, and leaves it to the kernel otherwise", () => {
    new CpuGroups(root, { runName: 'eo-bench-42', remove: removeRecursive, shares: BENCH_CPU_SHARES });
    expect(readFileSync(join(root, 'eo-bench-42', 'cpu.shares'), 'utf8')).toBe('29154');
    new CpuGroups(root, { runName: 'eo-bench-43', remove: removeRecursive });
    expect(existsSync(join(root, 'eo-bench-43', 'cpu.shares'))).toBe(false);
  });

  it('adds pids one write each to cgroup.procs, and reads cpu.stat', () => {
    const groups = new CpuGroups(root, { runName: 'eo-bench-42', remove: removeRecursive });
    const group = groups.create('128-ours', 128);
    group.add(101);
    group.add(102);
    expect(readFileSync(group.procsFile, 'utf8')).toBe('101\n102\n');
    expect(CpuGroups.pids(group.path)).toEqual([101, 102]);
    expect(group.stat()).toEqual({ periods: 0, throttledPeriods: 0, throttledMs: 0 });
    writeFileSync(join(group.path, 'cpu.stat'), 'nr_periods 10\nnr_throttled 4\nthrottled_time 2000000\n');
    expect(group.stat()).toEqual({ periods: 10, throttledPeriods: 4, throttledMs: 2 });
  });

  it("moves the processes left in a group back to the root group before removing it, then removes the run's parent", () => {
    const groups = new CpuGroups(root, { runName: 'eo-bench-42', remove: removeRecursive });
    const a = groups.create('128-a', 128);
    const b = groups.create('1769-b', 1769);
    a.add(7);
    expect(groups.remove(b)).toEqual([]);
    expect(existsSync(b.path)).toBe(false);
    expect(groups.removeAll()).toEqual([]);
    expect(readFileSync(join(root, 'cgroup.procs'), 'utf8')).toBe('7\n');
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(join(root, 'eo-bench-42'))).toBe(false);
  });

  it('reports a group it cannot remove instead of throwing (it runs on the way out of a failed run)', () => {
    const groups = new CpuGroups(root, {
      runName: 'eo-bench-42',
      remove: (path) => {
        throw Object.assign(new Error(`busy ${path}`), { code: 'EBUSY' });
      },
    });
    const group = groups.create('128-a', 128);
    expect(groups.removeAll()).toEqual([`${group.path}: EBUSY`, `${join(root, 'eo-bench-42')}: EBUSY`]);
  });

  it('turns a group it cannot set up into the usage error', () => {
    const groups = new CpuGroups(root, { runName: 'eo-bench-42', remove: removeRecursive });
    groups.create('128-a', 128);
    expect(() => groups.create('128-a', 128)).toThrow(CpuLimitUnavailableError);
  });

  it('removes the groups of a run whose process is gone, and leaves a live run alone', () => {
    mkdirSync(join(root, 'eo-bench-111', '256-x'), { recursive: true });
    mkdirSync(join(root, 'eo-bench-222', '256-y'), { recursive: true });
    mkdirSync(join(root, 'other'), { recursive: true });
    const removed = removeStaleRuns(root, (pid) => pid === 222, removeRecursive);
    expect(removed).toEqual(['eo-bench-111']);
    expect(existsSync(join(root, 'eo-bench-111'))).toBe(false);
    expect(existsSync(join(root, 'eo-bench-222', '256-y'))).toBe(true);
    expect(existsSync(join(root, 'other'))).toBe(true);
  });
});
