/**
 * Whether a DynamoDB Local JVM outlived what started it: by its PID, and by
 * its port no longer answering (test/integration/testing/dynamodb-local-kit.test.ts
 * and the docs replays in test/integration/testing/).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

export function alive(pid: number): boolean {
  if (existsSync('/proc/self')) {
    // A zombie (exited, not yet reaped) still answers kill(0): read its state instead.
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const answers = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.destroy() === socket));
    socket.once('error', () => resolve(false));
  });

export async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

/**
 * The DynamoDB Local JVMs running now whose environment has `HOME=home` (Linux
 * only: read from /proc): the ones a run started with that `HOME` (see
 * `runIn` in consumer-project.ts), told apart from those of other test files.
 */
export function dynamoDBLocalJvms(home: string): { pid: number; port: number }[] {
  const found: { pid: number; port: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!argv.some((arg) => arg.endsWith('DynamoDBLocal.jar')) || !/(^|\/)java$/.test(argv[0] ?? '')) continue;
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) continue;
      found.push({ pid: Number(entry), port: Number(argv[argv.indexOf('-port') + 1]) });
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}
