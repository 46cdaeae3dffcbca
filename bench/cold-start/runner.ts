/**
 * Runs in a fresh process (bundled and started by bench/cold-start.ts):
 * imports a handler bundle, as a Lambda init does (its top level builds the
 * clients and the middleware), then calls it once with the SQS batch in
 * `EO_BENCH_EVENT`, and prints what each took on a line of its own. Nothing
 * but Node's modules is loaded before the clock starts. With
 * `EO_BENCH_MOVE_AFTER_INIT` set (on demand), the process moves itself into
 * that CPU group between the import and the first batch.
 *
 *   node runner.mjs <handler bundle>
 */
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { COLD_RESULT_PREFIX, type ColdRunnerResult, MOVE_AFTER_INIT } from './protocol.js';

const [bundle] = process.argv.slice(2);
if (bundle === undefined) throw new Error('usage: runner.mjs <handler bundle>');
const event = JSON.parse(process.env['EO_BENCH_EVENT'] ?? '{"Records":[]}') as { Records: unknown[] };

// ms since Node's time origin (the process's start): Node's own boot.
const bootMs = performance.now();
const mod = (await import(pathToFileURL(bundle).href)) as {
  handler: (event: unknown, context: unknown) => Promise<{ batchItemFailures?: unknown[] }>;
};
const imported = performance.now();
const moveTo = process.env[MOVE_AFTER_INIT];
// One pid per write moves every thread of the process (cgroup v1 `cgroup.procs`).
if (moveTo !== undefined && moveTo !== '') appendFileSync(moveTo, `${process.pid}\n`);
const deadline = Date.now() + 60_000;
const memory = Number(process.env['AWS_LAMBDA_FUNCTION_MEMORY_SIZE'] ?? '128');
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'bench-cold',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-cold',
  memoryLimitInMB: String(memory),
  awsRequestId: `cold-${process.pid}`,
  logGroupName: '/aws/lambda/bench-cold',
  logStreamName: `cold/${process.pid}`,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const started = performance.now();
const answer = await mod.handler(event, context);
const done = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(
  `\n${COLD_RESULT_PREFIX}${JSON.stringify({
    bootMs,
    importMs: imported - bootMs,
    firstBatchMs: done - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    failures: answer.batchItemFailures?.length ?? 0,
  } satisfies ColdRunnerResult)}\n`,
);
