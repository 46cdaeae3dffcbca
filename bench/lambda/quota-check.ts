/**
 * Checks that a group's quota holds: a busy loop in a fresh process inside a
 * group of the size, for a fixed wall time, must get about the size's share
 * of it as CPU (25 % for 2 s: about 0.5 s). Run for the smallest size at the
 * start of every sweep, and for every size with `--check-quota`.
 */
import type { CpuGroups } from '../cgroup.js';
import { cpuShare } from '../cgroup.js';
import type { QuotaCheck } from '../results.js';
import { lambdaEnv, runToEnd, spawnLimited } from '../lambda-runtime.js';

const BUSY_LOOP = `
const started = Date.now();
const before = process.cpuUsage();
while (Date.now() - started < Number(process.argv[1])) {}
const used = process.cpuUsage(before);
process.stdout.write(JSON.stringify({ wallMs: Date.now() - started, cpuMs: (used.user + used.system) / 1000 }));
`;

/** How far off the measured share may be, relative, before the run says so loudly. */
export const QUOTA_TOLERANCE = 0.25;

/** Whether a check is within {@link QUOTA_TOLERANCE} of its expected share. */
export function quotaHolds(check: QuotaCheck): boolean {
  return Math.abs(check.measuredShare / check.expectedShare - 1) <= QUOTA_TOLERANCE;
}

/** A busy loop of `wallMs` in a group of `memoryMb`: the CPU it got. */
export async function checkQuota(groups: CpuGroups, memoryMb: number, wallMs: number): Promise<QuotaCheck> {
  const group = groups.create(`check-${memoryMb}`, memoryMb);
  try {
    const child = spawnLimited(['-e', BUSY_LOOP, String(wallMs)], group, { env: lambdaEnv(memoryMb), nodeFlags: [] });
    const { code, stdout: out } = await runToEnd(child);
    if (code !== 0) throw new Error(`the quota check at ${memoryMb} MB exited with ${code}`);
    const { wallMs: wall, cpuMs } = JSON.parse(out) as { wallMs: number; cpuMs: number };
    return { memoryMb, expectedShare: cpuShare(memoryMb), wallMs: wall, cpuMs, measuredShare: cpuMs / wall };
  } finally {
    groups.remove(group);
  }
}

export function quotaLine(c: QuotaCheck): string {
  return (
    `quota check at ${c.memoryMb} MB: a busy loop got ${c.cpuMs.toFixed(0)} ms CPU in ${c.wallMs.toFixed(0)} ms ` +
    `(${(c.measuredShare * 100).toFixed(1)} % of a vCPU, expected ${(c.expectedShare * 100).toFixed(1)} %)${quotaHolds(c) ? '' : ' !! OFF BY MORE THAN 25 %'}`
  );
}
