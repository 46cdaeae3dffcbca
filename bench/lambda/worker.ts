/**
 * One variant's handler in a process of its own, as a Lambda container at
 * one memory size runs it (bundled by workers.ts, started by it inside the
 * size's CPU group). It builds the variant's client (the AWS latency floor
 * and the request counters on it, as in the one-process bench) and handler,
 * then answers each batch the parent sends with its sample: wall time and
 * `process.cpuUsage` measured here, inside the limited process, and the
 * request pattern the batch's log line named. Each invocation's context has
 * `memoryLimitInMB` the size (what the library's default chooses its
 * requests by).
 */
import { countedClient } from '../dynamo.js';
import { EffectClock, type Lane, LoggedRequests, runBatch } from '../measure.js';
import { variants } from '../variants.js';
import type { FromWorker, InitMessage, ToWorker } from './protocol.js';

function send(message: FromWorker): void {
  process.send?.(message);
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function build(init: InitMessage): Lane {
  const variant = variants.find((v) => v.id === init.variantId);
  if (variant === undefined) throw new Error(`unknown variant ${init.variantId}`);
  const counted = countedClient(init.endpoint, init.client);
  const effects = new EffectClock();
  const logged = new LoggedRequests();
  const handler = variant.build({
    counted,
    tables: init.tables,
    cacheEntries: init.cacheEntries,
    onEffect: effects.mark,
    onBatchLine: logged.line,
  });
  return { variant, handler, counted, effects, logged, samples: [] };
}

let lane: Lane | undefined;
let memoryMb: number | undefined;
// One message at a time: the parent waits for each answer, but a chain keeps the order should it not.
let queue: Promise<void> = Promise.resolve();

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case 'init':
      lane = build(message);
      memoryMb = message.memoryMb;
      send({ type: 'ready' });
      return;
    case 'batch': {
      if (lane === undefined) throw new Error('a batch before init');
      const { serverCpuMs: _none, ...sample } = await runBatch(lane, message.deliveries, message.slice, undefined, memoryMb);
      send({ type: 'sample', sample, error: lane.error });
      return;
    }
    case 'stop':
      lane?.counted.client.destroy();
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ToWorker) => {
  queue = queue.then(() => handle(message)).catch((err: unknown) => send({ type: 'failed', error: errorText(err) }));
});

// The parent gone (it finished, or died): nothing more to do here.
process.on('disconnect', () => {
  lane?.counted.client.destroy();
  process.exit(0);
});
