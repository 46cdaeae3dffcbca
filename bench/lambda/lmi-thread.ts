/**
 * One worker thread of a Lambda Managed Instances execution environment
 * (started by lmi-environment.ts, bundled by lmi.ts): as the Node.js runtime
 * does, it runs the function's init once (the variant's client and handler)
 * and then many invocations at once, each awaited on its own and run in its
 * own context of the runtime's invoke store (invoke-store.ts): the handler
 * object and the module state are shared by every invocation in flight.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import type { Context, SQSEvent } from 'aws-lambda';
import { lambdaContext, sqsEvent, sqsRecord } from '../../src/testing/index.js';
import type { BatchHandler } from '../contenders.js';
import { type CountedClient, countedClient } from '../dynamo.js';
import { variantSeed } from '../lanes.js';
import type { RequestPattern } from '../stats.js';
import { variants } from '../variants.js';
import type { Delivery } from '../workload.js';
import { installInvokeStore } from './invoke-store.js';
import type { FromThread, LmiInit, ThreadInvoke, ToThread } from './lmi-protocol.js';

const port = parentPort;
if (port === null) throw new Error('lmi-thread.ts runs as a worker thread');
const init = (workerData as { init: LmiInit; index: number }).init;
const index = (workerData as { index: number }).index;

// As the runtime does before the function's init: libraries find each invocation's store here.
const invokeStore = installInvokeStore();

function send(message: FromThread): void {
  port?.postMessage(message);
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Invocations by the request pattern their batch log line named, since the last tally. */
let requestPatterns: Partial<Record<RequestPattern, number>> = {};

function countLine(line: { readonly requests?: RequestPattern }): void {
  if (line.requests !== undefined) requestPatterns[line.requests] = (requestPatterns[line.requests] ?? 0) + 1;
}

function build(): { handler: BatchHandler; counted: CountedClient } {
  const variant = variants.find((v) => v.id === init.variantId);
  if (variant === undefined) throw new Error(`unknown variant ${init.variantId}`);
  // Each thread draws its latency floor from its own generator.
  const aws = init.client.aws === undefined ? {} : { aws: { seed: variantSeed(init.client.aws.seed, `thread-${index}`) } };
  const counted = countedClient(init.endpoint, { ...init.client, ...aws });
  const handler = variant.build({
    counted,
    tables: init.tables,
    cacheEntries: init.cacheEntries,
    onEffect: () => {},
    onBatchLine: countLine,
  });
  return { handler, counted };
}

function toEvent(batch: readonly Delivery[]): SQSEvent {
  return sqsEvent(batch.map((d) => sqsRecord({ body: d.event, messageId: d.messageId })));
}

async function invoke(handler: BatchHandler, message: ThreadInvoke): Promise<void> {
  const event = toEvent(message.deliveries);
  // memoryLimitInMB the function's memory, as on Lambda; AWS_LAMBDA_MAX_CONCURRENCY in the environment is what tells
  // the library it runs on Managed Instances.
  const context: Context = lambdaContext({ functionName: 'bench', timeoutMs: 60_000, memoryLimitInMB: init.memoryMb });
  const started = performance.now();
  let failed: string[];
  let error: string | undefined;
  try {
    const answer = await invokeStore.runInvocation(context.awsRequestId, () => handler(event, context));
    failed = answer.batchItemFailures.map((f) => f.itemIdentifier);
  } catch (err) {
    // A thrown handler fails the whole batch (Powertools throws when every record failed): the queue sends it all again.
    failed = message.deliveries.map((d) => d.messageId);
    error = errorText(err);
  }
  send({ type: 'done', id: message.id, ms: performance.now() - started, failed, error });
}

let lane: { handler: BatchHandler; counted: CountedClient } | undefined;
try {
  // The init in a context of its own too: Powertools 2.35.0's BatchProcessor writes to the store when it is
  // built (its constructor sets the batch response), which the store refuses outside any context.
  lane = invokeStore.runInvocation(`init-${index}`, build);
  send({ type: 'ready' });
} catch (err) {
  send({ type: 'failed', error: errorText(err) });
}

port.on('message', (message: ToThread) => {
  if (lane === undefined) return;
  switch (message.type) {
    case 'invoke':
      void invoke(lane.handler, message);
      return;
    case 'tally':
      send({ type: 'tally', tally: lane.counted.counter.take(), requestPatterns });
      requestPatterns = {};
      return;
    case 'stop':
      lane.counted.client.destroy();
      port.close();
      return;
  }
});
