/**
 * `npm run chaos`: the reference service under a seeded mix of faults, one
 * run per seed, until the queues drain; prints the invariants per strategy
 * and exits 1 if one is broken (2 on a bad command line, 130 on Ctrl-C).
 */
import { abortOnSignals, runMain } from './local/cli.js';
import { formatChaosReport } from './chaos/format.js';
import { chaosUsage, ChaosUsageError, parseChaosArgs, type ChaosCommand } from './chaos/options.js';
import { runChaos } from './chaos/run.js';

function command(): ChaosCommand | undefined {
  try {
    return parseChaosArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ChaosUsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${chaosUsage}`);
    process.exitCode = 2;
    return undefined;
  }
}

async function main(): Promise<void> {
  const cmd = command();
  if (cmd === undefined) return;
  if (cmd.help) {
    process.stdout.write(chaosUsage);
    return;
  }
  const controller = new AbortController();
  abortOnSignals(controller);
  const say = (line: string) => process.stderr.write(`[chaos] ${line}\n`);
  const report = await runChaos({
    seed: cmd.seed,
    seeds: cmd.seeds,
    messages: cmd.messages,
    pollers: cmd.pollers,
    signal: controller.signal,
    ...(process.env['DYNAMODB_ENDPOINT'] ? { dynamodbEndpoint: process.env['DYNAMODB_ENDPOINT'] } : {}),
    ...(cmd.progress
      ? {
          onLine: say,
          onProgress: (seed, p) =>
            say(
              `seed ${seed} [${(p.elapsedMs / 1000).toFixed(0)}s] delivered ${p.delivered}, acknowledged ${p.acknowledged}, queued ${p.queued}, async pending ${p.asyncPending}, DLQ ${p.dlq}`,
            ),
        }
      : {}),
  });
  process.stdout.write(cmd.json ? `${JSON.stringify(report, null, 2)}\n` : formatChaosReport(report));
  process.exitCode = report.ok ? 0 : 1;
}

runMain('Chaos run', main);
