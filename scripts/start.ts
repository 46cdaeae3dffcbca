/**
 * `npm start`: runs the reference service locally (DynamoDB Local + an
 * embedded SQS, no Docker, no AWS account) under a workload with duplicates,
 * transient failures and poison messages, prints progress to stderr and the
 * report to stdout, and exits 1 when an invariant is broken (2 on a bad
 * command line, 130 on Ctrl-C).
 */
import { parseArgs, usage, UsageError, type Command } from './local/options.js';
import { formatReport } from './local/format.js';
import { abortOnSignals, runMain } from './local/cli.js';
import { runLocal, type Progress } from './local/run.js';

function progressLine(p: Progress): string {
  const s = (p.elapsedMs / 1000).toFixed(0).padStart(3);
  return (
    `[${s}s] sent ${p.sent}  delivered ${p.delivered}  acknowledged ${p.acknowledged}  ` +
    `in flight ${p.inFlight}  queued ${p.queued}  async pending ${p.asyncPending}  DLQ ${p.dlq}`
  );
}

function command(): Command | undefined {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage}`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const cmd = command();
  if (cmd === undefined) return;
  if (cmd.kind === 'help') {
    process.stdout.write(usage);
    return;
  }
  const controller = new AbortController();
  abortOnSignals(controller);
  process.stderr.write('Starting DynamoDB Local and the local SQS...\n');
  const report = await runLocal({
    ...cmd.workload,
    signal: controller.signal,
    ...(cmd.progress ? { onProgress: (p: Progress) => process.stderr.write(`${progressLine(p)}\n`) } : {}),
  });
  process.stdout.write(cmd.json ? `${JSON.stringify(report, null, 2)}\n` : `\n${formatReport(report)}\n`);
  process.exitCode = report.ok ? 0 : 1;
}

runMain('Local run', main);
