/**
 * A Lambda Managed Instances execution environment (forked by lmi.ts into a
 * CPU group of its vCPUs): as the Node.js runtime runs one, it starts a
 * worker thread per vCPU, each with its own init, and keeps up to `inFlight`
 * invocations going across them. Records a handler reports failed
 * (`batchItemFailures`: a duplicate that found its original still in
 * progress) go back to the queue and come again in a later invocation, as
 * SQS sends them again once they are visible; after a number of receives
 * they are given up (a dead-letter queue would get them) and counted
 * (redelivery.ts).
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { addTallies, type RequestTally } from '../counter.js';
import { addPatterns, type RequestPatterns } from '../stats.js';
import type { FromEnvironment, FromThread, LmiInit, LmiSliceOrder, LmiSliceResult, ToEnvironment, ToThread } from './lmi-protocol.js';
import { dueBatches, handBack, type Waiting } from './redelivery.js';

function send(message: FromEnvironment): void {
  process.send?.(message);
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** A worker thread and what is in flight on it. */
interface Thread {
  readonly worker: Worker;
  inFlight: number;
  /** Answers waited for by the pump (`done`) and the tally. */
  onMessage: (message: FromThread) => void;
}

function startThread(init: LmiInit, index: number): Promise<Thread> {
  const worker = new Worker(init.threadFile, { workerData: { init, index } });
  return new Promise((resolve, reject) => {
    const thread: Thread = { worker, inFlight: 0, onMessage: () => {} };
    worker.on('message', (message: FromThread) => thread.onMessage(message));
    worker.once('error', reject);
    thread.onMessage = (message) => {
      if (message.type === 'ready') resolve(thread);
      else if (message.type === 'failed') reject(new Error(message.error));
    };
  });
}

/** Runs one slice: `inFlight` invocations at a time over the threads, redeliveries first once due. */
function runSlice(threads: readonly Thread[], order: LmiSliceOrder): Promise<LmiSliceResult> {
  return new Promise((resolve) => {
    const fresh = order.batches.map((deliveries) => deliveries.map((delivery) => ({ delivery, receives: 1, dueAt: 0 })));
    let waiting: Waiting[] = [];
    const pending = new Map<number, readonly Waiting[]>();
    const batchMs: number[] = [];
    let next = 0;
    let records = 0;
    let windowRecords = 0;
    let redeliveries = 0;
    let unacknowledged = 0;
    let error: string | undefined;
    let windowEnd: { ms: number; cpu: NodeJS.CpuUsage } | undefined;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const perThread = threads.map((_, i) => Math.floor(order.inFlight / threads.length) + (i < order.inFlight % threads.length ? 1 : 0));

    const dispatch = (batch: readonly Waiting[]): boolean => {
      const free = threads
        .map((t, i) => ({ t, room: (perThread[i] ?? 0) - t.inFlight }))
        .filter((x) => x.room > 0)
        .sort((a, b) => b.room - a.room)[0];
      if (free === undefined) return false;
      const id = next;
      next += 1;
      pending.set(id, batch);
      free.t.inFlight += 1;
      free.t.worker.postMessage({ type: 'invoke', id, deliveries: batch.map((w) => w.delivery) } satisfies ToThread);
      return true;
    };

    const pump = (): void => {
      const now = performance.now();
      for (const batch of dueBatches(waiting, now, order.batchSize)) {
        if (!dispatch(batch)) break;
        waiting = waiting.filter((w) => !batch.includes(w));
        redeliveries += batch.length;
      }
      while (fresh.length > 0 && dispatch(fresh[0] as Waiting[])) fresh.shift();
      if (fresh.length === 0 && windowEnd === undefined) windowEnd = { ms: performance.now(), cpu: process.cpuUsage(cpu) };
      if (pending.size === 0 && fresh.length === 0 && waiting.length === 0) {
        finish();
        return;
      }
      if (waiting.length > 0 && timer === undefined) {
        const wait = Math.max(0, Math.min(...waiting.map((w) => w.dueAt)) - now);
        timer = setTimeout(() => {
          timer = undefined;
          pump();
        }, wait);
      }
    };

    const onDone = (thread: Thread, message: Extract<FromThread, { type: 'done' }>): void => {
      thread.inFlight -= 1;
      const batch = pending.get(message.id) ?? [];
      pending.delete(message.id);
      batchMs.push(message.ms);
      error ??= message.error;
      const failed = new Set(message.failed);
      const acked = batch.filter((w) => !failed.has(w.delivery.messageId)).length;
      records += acked;
      if (windowEnd === undefined) windowRecords += acked;
      const { again, givenUp } = handBack(
        batch.filter((x) => failed.has(x.delivery.messageId)),
        performance.now(),
      );
      waiting.push(...again);
      unacknowledged += givenUp;
      pump();
    };

    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const totalMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      // Every batch handed out at once (no more batches than in flight): no steady window, the whole slice stands for it.
      const steady = windowEnd !== undefined && windowRecords > 0;
      const end = steady && windowEnd !== undefined ? windowEnd : { ms: performance.now(), cpu: used };
      if (!steady) windowRecords = records;
      const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
      void collectTallies(threads).then(({ tally, requestPatterns }) =>
        resolve({
          windowMs: end.ms - started,
          windowCpuMs: cpuMs(end.cpu),
          windowRecords,
          totalMs,
          totalCpuMs: cpuMs(used),
          records,
          batchMs,
          invocations: batchMs.length,
          redeliveries,
          unacknowledged,
          tally,
          requestPatterns,
          error,
        }),
      );
    };

    for (const t of threads)
      t.onMessage = (message) => {
        if (message.type === 'done') onDone(t, message);
      };
    pump();
  });
}

/** Every thread's request counts and request patterns since the last time, summed. */
async function collectTallies(threads: readonly Thread[]): Promise<{ tally: RequestTally; requestPatterns: RequestPatterns }> {
  const tallies = await Promise.all(
    threads.map(
      (t) =>
        new Promise<{ tally: RequestTally; requestPatterns: RequestPatterns }>((resolve) => {
          t.onMessage = (message) => {
            if (message.type === 'tally') resolve(message);
          };
          t.worker.postMessage({ type: 'tally' } satisfies ToThread);
        }),
    ),
  );
  return {
    tally: addTallies(tallies.map((t) => t.tally)),
    requestPatterns: addPatterns(tallies.map((t) => t.requestPatterns)),
  };
}

let threads: Thread[] = [];
// One message at a time: the parent waits for each answer, but a chain keeps the order should it not.
let queue: Promise<void> = Promise.resolve();

async function handle(message: ToEnvironment): Promise<void> {
  switch (message.type) {
    case 'init':
      threads = await Promise.all(Array.from({ length: message.threads }, (_, i) => startThread(message, i)));
      send({ type: 'ready' });
      return;
    case 'slice':
      send({ type: 'slice', result: await runSlice(threads, message) });
      return;
    case 'stop':
      for (const t of threads) t.worker.postMessage({ type: 'stop' } satisfies ToThread);
      await Promise.all(threads.map((t) => t.worker.terminate()));
      process.disconnect?.();
      return;
  }
}

process.on('message', (message: ToEnvironment) => {
  queue = queue.then(() => handle(message)).catch((err: unknown) => send({ type: 'failed', error: errorText(err) }));
});

// The parent gone (it finished, or died): nothing more to do here.
process.on('disconnect', () => process.exit(0));
