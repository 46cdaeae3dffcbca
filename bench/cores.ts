/**
 * `--aws`: DynamoDB Local on one core, the bench on the other(s), so the
 * server's CPU does not queue behind the handlers' (on AWS it runs on
 * DynamoDB's machines). Done from the bench side with `taskset -a -p`
 * (every thread of each process; threads started later inherit the mask)
 * where taskset exists. Other processes on the machine still share both
 * cores: the report records the load.
 */
import { spawnSync } from 'node:child_process';

/** What the pinning did, for the report. */
export interface Pinning {
  readonly pinned: boolean;
  readonly summary: string;
}

/** CPUs of a taskset list (`0-2,5` → [0, 1, 2, 5]). */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const [from, to] = part.split('-').map((n) => Number.parseInt(n, 10));
    if (from === undefined || Number.isNaN(from)) continue;
    for (let cpu = from; cpu <= (to === undefined || Number.isNaN(to) ? from : to); cpu += 1) cpus.push(cpu);
  }
  return cpus;
}

function taskset(args: readonly string[]): { ok: boolean; out: string } {
  const run = spawnSync('taskset', args, { encoding: 'utf8' });
  return { ok: run.error === undefined && run.status === 0, out: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
}

/** Pins DynamoDB Local (`serverPid`) to the first CPU this process may use and this process to the others. */
export function pinCores(serverPid: number | undefined): Pinning {
  if (serverPid === undefined) return { pinned: false, summary: 'not pinned: DynamoDB Local was borrowed (DYNAMODB_ENDPOINT)' };
  const current = taskset(['-p', '-c', String(process.pid)]);
  if (!current.ok) return { pinned: false, summary: `not pinned: taskset unavailable (${current.out || 'not found'})` };
  const cpus = parseCpuList(current.out.slice(current.out.lastIndexOf(':') + 1));
  const [server, ...bench] = cpus;
  if (server === undefined || bench.length === 0) return { pinned: false, summary: `not pinned: only CPU ${cpus.join(',')} available` };
  const a = taskset(['-a', '-p', '-c', String(server), String(serverPid)]);
  const b = taskset(['-a', '-p', '-c', bench.join(','), String(process.pid)]);
  if (!a.ok || !b.ok) return { pinned: false, summary: `not pinned: taskset failed (${a.ok ? b.out : a.out})` };
  return { pinned: true, summary: `DynamoDB Local pinned to CPU ${server}, the bench to CPU ${bench.join(',')} (taskset -a -p)` };
}
