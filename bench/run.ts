/**
 * `npm run bench`: effectively-once and Powertools on the same workloads, in
 * the same run, figures side by side. Timing lives here and never in tests.
 * Progress goes to stderr so stdout stays the table (or the JSON).
 */
import { parseBenchArgs, usage, type BenchArgs } from './args.js';
import { contenderSettings } from './contenders.js';
import { setUpDynamo } from './dynamo.js';
import { runFencing, type FencingResult } from './fencing.js';
import { runScenario, type ScenarioResult } from './measure.js';
import { formatJson, formatTable, machine, type BenchReport } from './report.js';
import { scenarios } from './scenarios.js';

function progress(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

async function bench(args: BenchArgs): Promise<BenchReport> {
  const started = Date.now();
  progress(process.env['DYNAMODB_ENDPOINT'] ? `using DYNAMODB_ENDPOINT=${process.env['DYNAMODB_ENDPOINT']}` : 'starting DynamoDB Local');
  const { local, tables } = await setUpDynamo();
  try {
    const env = { endpoint: local.endpoint, tables };
    const selected = args.only.length === 0 ? scenarios : scenarios.filter((s) => args.only.includes(s.id));
    const results: ScenarioResult[] = [];
    for (const scenario of selected) results.push(await runScenario(scenario, env, args, progress));
    const fencing: FencingResult[] = args.skipCorrectness ? [] : await runFencing(local.endpoint, progress);
    progress(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return {
      date: new Date().toISOString(),
      machine: machine(),
      endpoint: local.pid === undefined ? local.endpoint : 'DynamoDB Local (started by the bench)',
      options: { rounds: args.rounds, warmup: args.warmup, batch: args.batch },
      settings: contenderSettings,
      scenarios: results,
      fencing,
    };
  } finally {
    await local.stop();
  }
}

async function main(): Promise<void> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    process.stdout.write(usage);
    return;
  }
  const report = await bench(args);
  process.stdout.write(args.json ? formatJson(report) : formatTable(report));
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
