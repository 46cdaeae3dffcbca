/**
 * Runs in a fresh, CPU-limited process (bundled and started by
 * lambda/cold-start.ts): imports a handler bundle, as a Lambda init does
 * (its top level builds the clients and the middleware), then calls it once
 * with the SQS batch in `EO_BENCH_EVENT`, and prints what each took on a
 * line of its own. Nothing but Node's modules is loaded before the clock
 * starts.
 *
 *   node cold-runner.mjs <handler bundle>
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { COLD_RESULT_PREFIX as RESULT_PREFIX, type ColdRunnerResult } from './protocol.js';

const [bundle] = process.argv.slice(2);
if (bundle === undefined) throw new Error('usage: cold-runner.mjs <handler bundle>');
const event = JSON.parse(process.env['EO_BENCH_EVENT'] ?? '{"Records":[]}') as { Records: unknown[] };

// ms since Node's time origin (the process's start): Node's own boot, under the quota too.
const bootMs = performance.now();
const mod = (await import(pathToFileURL(bundle).href)) as {
  handler: (event: unknown, context: unknown) => Promise<{ batchItemFailures?: unknown[] }>;
};
const imported = performance.now();
const deadline = Date.now() + 60_000;
const memory = process.env['AWS_LAMBDA_FUNCTION_MEMORY_SIZE'] ?? '128';
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'bench-cold',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench-cold',
  memoryLimitInMB: memory,
  awsRequestId: `cold-${process.pid}`,
  logGroupName: '/aws/lambda/bench-cold',
  logStreamName: `cold/${process.pid}`,
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
};
const answer = await mod.handler(event, context);
const done = performance.now();
const cpu = process.cpuUsage();
process.stdout.write(
  `\n${RESULT_PREFIX}${JSON.stringify({
    bootMs,
    importMs: imported - bootMs,
    firstBatchMs: done - imported,
    cpuMs: (cpu.user + cpu.system) / 1000,
    failures: answer.batchItemFailures?.length ?? 0,
  } satisfies ColdRunnerResult)}\n`,
);
