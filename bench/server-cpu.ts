/**
 * CPU time of the DynamoDB Local process (when the bench started it), read
 * from /proc. On this bench's machine DynamoDB Local and the handlers share
 * the cores, so a variant's latency is largely the CPU both processes spend
 * on its requests; this is the server's half. Linux only; elsewhere, or for
 * a borrowed endpoint, there is no figure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

function clockTicksPerSecond(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/**
 * A reader of the process's user + system CPU so far, ms, or undefined when
 * it cannot be read. The kernel counts in clock ticks (10 ms at 100 Hz): one
 * batch's reading is coarse, but the differences add up without bias over
 * hundreds of batches.
 */
export function processCpuReader(pid: number | undefined): (() => number) | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  const path = `/proc/${pid}/stat`;
  const msPerTick = 1000 / clockTicksPerSecond();
  const read = (): number => {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command name (which may contain spaces) start at state; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * msPerTick;
  };
  try {
    read();
    return read;
  } catch {
    return undefined;
  }
}
