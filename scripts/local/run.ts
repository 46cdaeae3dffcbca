/**
 * `runLocal()`: the whole local run as a function (used by `npm start` and
 * the integration test). Starts the environment, seeds the orders, runs the
 * real handlers behind local event sources while the producers send the
 * workload, waits until everything settled, reads the end state back, and
 * returns the report. Everything it started is stopped before it returns or
 * throws.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { asyncInvokeDefinitions } from '../../infra/queues.js';
import { createAsyncInvoker, type AsyncFailureRecord, type AsyncInvoker } from './async-invoker.js';
import { bodyField, readFailureDestination, readSqsDlq, depth } from './dlq.js';
import { drain, RunAbortedError, type Progress } from './drain.js';
import { startSqsMapping, type SqsHandler, type SqsMapping } from './event-source.js';
import { Resources, startEnvironment, type LocalEnvironment } from './environment.js';
import { createLogCollector, type LogCollector } from './log-collector.js';
import { createMetricsCollector, type MetricsCollector } from './metrics-collector.js';
import { defaults, type WorkloadOptions } from './options.js';
import { chanceOf } from './prng.js';
import { relayMapping, type LocalRelayMapping } from './outbox-relay.js';
import { newSendStats, sendAll, type SendStats } from './producer.js';
import type { ConsumedQueue } from './queues.js';
import { finishReport, type LocalRunReport } from './report.js';
import { buildService, type LocalService, type OrderPaidEvent } from './service.js';
import type { RunHooks } from './run-hooks.js';
import { newSourceStats, type SourceStats } from './stats.js';
import { seedOrders } from './tables.js';
import { verifyNotifications, verifyOrders, verifyOutbox, verifyPoints } from './verify.js';
import { planWorkload, type PlannedSend, type Workload } from './workload.js';

export type { Progress } from './drain.js';
export type { LocalRunReport } from './report.js';

/** Options of {@link runLocal}: the workload (defaults as `npm start`) and how to run it. */
export interface RunLocalOptions extends Partial<WorkloadOptions> {
  /** Use this DynamoDB Local instead of starting one (tables get a unique prefix). */
  readonly dynamodbEndpoint?: string;
  /** Abort the run (Ctrl-C): everything started is stopped and `runLocal` rejects. */
  readonly signal?: AbortSignal;
  /** Called about once per `progressIntervalMs` while the run works. */
  readonly onProgress?: (progress: Progress) => void;
  readonly progressIntervalMs?: number;
  /** Where the middleware's log lines go. Default: a new temp directory. */
  readonly logDir?: string;
  /** Give up waiting after this long; the report then shows what was left. Default 5 minutes. */
  readonly timeoutMs?: number;
  /** Chaos hooks (the chaos run); none in `npm start`. */
  readonly hooks?: RunHooks;
}

type Stats = Record<'payments' | 'notifications' | 'points', SourceStats>;

/** Everything a run holds while it works. */
interface Run {
  readonly env: LocalEnvironment;
  readonly options: WorkloadOptions;
  readonly workload: Workload;
  readonly log: LogCollector;
  readonly emf: MetricsCollector;
  readonly stats: Stats;
  readonly service: LocalService;
  readonly invoker: AsyncInvoker<OrderPaidEvent>;
  /** The outbox relay on the orders table's stream. */
  readonly relay: LocalRelayMapping;
  readonly sendStats: SendStats;
  readonly sentById: Map<string, PlannedSend>;
  readonly hooks: RunHooks | undefined;
}

// Lambda waits ~1 and ~2 minutes between async attempts; scaled down like the visibility timeout.
const LOCAL_ASYNC_RETRY_DELAYS_MS = [250, 500];

function pointsInvoker(
  env: LocalEnvironment,
  options: WorkloadOptions,
  stats: SourceStats,
  service: () => LocalService,
  hooks: RunHooks | undefined,
) {
  const definition = asyncInvokeDefinitions.points;
  return createAsyncInvoker<OrderPaidEvent>({
    functionName: 'points',
    handler: (event, context) => service().points(event, context),
    definition,
    retryDelaysMs: LOCAL_ASYNC_RETRY_DELAYS_MS,
    functionTimeoutMs: hooks?.functionTimeoutMs ?? definition.functionTimeoutSeconds * 1000,
    ...(hooks === undefined ? {} : { onSucceeded: (event: OrderPaidEvent) => hooks.onPointsSucceeded(event) }),
    // DynamoDB Local is the bottleneck: measured, more concurrency here only added latency, not throughput.
    concurrency: options.pollers * 2,
    stats,
    onFailure: async (record: AsyncFailureRecord<OrderPaidEvent>) => {
      const url = env.queues.pointsFailures.url;
      await env.sqs.client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(record) }));
    },
  });
}

async function prepare(
  env: LocalEnvironment,
  options: WorkloadOptions,
  logDir: string,
  resources: Resources,
  hooks: RunHooks | undefined,
): Promise<Run> {
  const workload = planWorkload(options);
  await seedOrders(env.adminDoc, env.tables.orders, [...workload.orders, ...workload.otherOrders]);
  const log = createLogCollector(join(logDir, 'middleware.jsonl'));
  resources.add('middleware log file', () => log.close());
  const emf = createMetricsCollector(join(logDir, 'metrics.emf.jsonl'));
  resources.add('EMF metrics file', () => emf.close());
  const stats: Stats = { payments: newSourceStats(), notifications: newSourceStats(), points: newSourceStats() };
  let service: LocalService | undefined;
  const invoker = pointsInvoker(env, options, stats.points, () => service as LocalService, hooks);
  hooks?.instrument(env.handlerDoc);
  resources.add('points async invoker', () => invoker.stop());
  service = buildService({
    doc: env.handlerDoc,
    tables: env.tables,
    workload,
    logger: log.logger,
    metrics: emf.metrics,
    deliver: (event) => invoker.invoke(event),
    // Permanent failures to the DLQ and backoff, through the local SQS; backoff capped at the shortened visibility timeout.
    sqs: env.sqs.client,
    backoff: { baseSeconds: 1, maxSeconds: Math.max(1, options.visibilityTimeoutSeconds) },
    relayDoc: env.adminDoc,
    ...(hooks === undefined ? {} : { hooks: hooks.service }),
  });
  const relay = await relayMapping(env.dynamodbEndpoint, env.tables.orders, service.relay, resources, hooks?.functionTimeoutMs);
  return { env, options, workload, log, emf, stats, service, invoker, relay, sendStats: newSendStats(), sentById: new Map(), hooks };
}

function mapping(run: Run, queue: ConsumedQueue, name: 'payments' | 'notifications', handler: SqsHandler): SqsMapping {
  const { seed, failRate } = run.options;
  return startSqsMapping({
    client: run.env.sqs.client,
    queue,
    functionName: name,
    handler,
    pollers: run.options.pollers,
    functionTimeoutMs: run.hooks?.functionTimeoutMs ?? queue.definition.functionTimeoutSeconds * 1000,
    ...run.hooks?.mapping(name),
    stats: run.stats[name],
    onInvocation: (event, result) => {
      if (result.kind === 'returned') return;
      const why = result.kind === 'timed-out' ? 'invocation timed out' : `invocation ${result.kind}: ${String(result.error)}`;
      for (const r of event.Records) run.log.note(r.messageId, why);
    },
    // Now and then the poller "crashes" after the handler and before the delete: the batch comes back.
    loseAck: (event) => {
      const head = event.Records[0];
      const label = `ack|${head?.body ?? ''}|${head?.attributes.ApproximateReceiveCount ?? ''}`;
      return chanceOf(seed, label) < failRate / 5;
    },
  });
}

/** Runs the workload; resolves how many async events were still pending at the end (0 unless timed out). */
async function execute(run: Run, input: RunLocalOptions, resources: Resources, startedAt: number): Promise<number> {
  const { env, service } = run;
  const mappings = [
    mapping(run, env.queues.payments, 'payments', service.payments),
    mapping(run, env.queues.notifications, 'notifications', service.notifications),
  ];
  for (const m of mappings) resources.add('event-source mapping', () => m.stop());
  run.relay.start();
  const sending = { done: false, error: undefined as unknown, sent: () => run.sentById.size + run.sendStats.fifoDropped };
  sendAll(env.sqs.client, env.queues, run.workload.sends, run.sendStats, run.sentById).then(
    () => void (sending.done = true),
    (error: unknown) => void (sending.error = error ?? new Error('send failed')),
  );
  await drain({
    server: env.sqs.server,
    queues: env.queues,
    mappings,
    invoker: run.invoker,
    stats: Object.values(run.stats),
    sending,
    startedAt,
    timeoutMs: input.timeoutMs ?? 300_000,
    signal: input.signal,
    onProgress: input.onProgress,
    progressIntervalMs: input.progressIntervalMs ?? 1000,
  });
  // Stop consuming before reading the end state, so it cannot move under the verification.
  await Promise.all(mappings.map((m) => m.stop()));
  // The relay last: what is left in the stream is published, and points runs it.
  await run.relay.settle(() => invokerIdle(run));
  const asyncPending = run.invoker.pending();
  run.invoker.stop();
  return asyncPending;
}

/** Resolves once no async points event is pending (seen twice, 100 ms apart). */
async function invokerIdle(run: Run): Promise<void> {
  for (let idle = 0; idle < 2; ) {
    const error = run.invoker.error();
    if (error !== undefined) throw error;
    idle = run.invoker.pending() === 0 ? idle + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function readEffects(run: Run) {
  const { env, workload, service } = run;
  // Each PENDING->PAID transition is one Update of an order (the outbox item is a Put; the relay's mark is uncounted).
  const transitions = env.requests.updatesByTable[env.tables.orders] ?? 0;
  return {
    orders: await verifyOrders(env.adminDoc, env.tables.orders, workload, transitions),
    points: await verifyPoints(env.adminDoc, env.tables.points, workload),
    notifications: verifyNotifications(workload, service.effects),
    outbox: await verifyOutbox(env.adminDoc, env.tables, run.relay),
  };
}

function readDlqs(run: Run, effects: Awaited<ReturnType<typeof readEffects>>): LocalRunReport['dlq'] {
  const { env, workload, log, service } = run;
  const poisonOf = (q: 'payments' | 'notifications') => workload.poison.filter((p) => p.queue === q);
  const unpaid = new Set(effects.orders.neverPaid);
  const paid = (body: string) => !unpaid.has(String(bodyField(body, 'orderNo')));
  const sent = (body: string) => (service.effects.notificationsSent.get(String(bodyField(body, 'notificationId'))) ?? 0) > 0;
  const server = env.sqs.server;
  return {
    payments: readSqsDlq(server, env.queues.payments.dlq, poisonOf('payments'), log.lastLogged, paid),
    notifications: readSqsDlq(server, env.queues.notifications.dlq, poisonOf('notifications'), log.lastLogged, sent),
    points: readFailureDestination(server, env.queues.pointsFailures),
  };
}

async function report(run: Run, timing: LocalRunReport['timing'], asyncPending: number): Promise<LocalRunReport> {
  const { env, workload, stats, service, log } = run;
  const server = env.sqs.server;
  const deliveries = stats.payments.delivered + stats.notifications.delivered + stats.points.delivered;
  const effects = await readEffects(run);
  const planned = (q: 'payments' | 'notifications') => workload.poison.filter((p) => p.queue === q).length;
  return finishReport({
    options: run.options,
    timing,
    sent: {
      ...run.sendStats,
      orderPaidPublished: service.effects.orderPaidPublished,
      orderPaidRepublished: service.effects.orderPaidRepublished,
    },
    sources: stats,
    outcomes: log.totals,
    metrics: run.emf.totals,
    duplicatesAcknowledged: Object.values(log.totals).reduce((sum, t) => sum + (t.duplicate ?? 0), 0),
    backedOff: log.backedOff,
    faultsInjected: {
      publish: service.faults.publish.injected,
      send: service.faults.send.injected,
      points: service.faults.points.injected,
    },
    dlq: readDlqs(run, effects),
    effects,
    dynamodb: { ...env.requests, perDelivery: deliveries === 0 ? 0 : env.requests.total / deliveries },
    throughput: { deliveries, deliveriesPerSecond: timing.runMs === 0 ? 0 : deliveries / (timing.runMs / 1000) },
    leftInQueues: {
      [env.queues.payments.name]: depth(server, env.queues.payments),
      [env.queues.notifications.name]: depth(server, env.queues.notifications),
      'points async invocations': asyncPending,
    },
    logFile: log.path,
    poisonPlanned: { payments: planned('payments'), notifications: planned('notifications') },
  });
}

/**
 * Runs the reference service locally under the workload and returns the
 * report (`report.ok` is false when an invariant is broken).
 *
 * @example
 * ```ts
 * const report = await runLocal({ orders: 60, seed: 7 });
 * if (!report.ok) console.log(report.invariants.filter((i) => !i.ok));
 * ```
 */
export async function runLocal(input: RunLocalOptions = {}): Promise<LocalRunReport> {
  const options: WorkloadOptions = { ...defaults, ...withoutUndefined(input) };
  const startedAt = Date.now();
  const resources = new Resources();
  try {
    const env = await startEnvironment(resources, {
      ...(input.dynamodbEndpoint === undefined ? {} : { dynamodbEndpoint: input.dynamodbEndpoint }),
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
    });
    checkAborted(input.signal);
    const logDir = input.logDir ?? mkdtempSync(join(tmpdir(), 'effectively-once-local-'));
    const run = await prepare(env, options, logDir, resources, input.hooks);
    checkAborted(input.signal);
    const runStartedAt = Date.now();
    const asyncPending = await execute(run, input, resources, runStartedAt);
    const runMs = Date.now() - runStartedAt;
    return await report(run, { setupMs: runStartedAt - startedAt, runMs, totalMs: Date.now() - startedAt }, asyncPending);
  } finally {
    const errors = await resources.close();
    for (const error of errors) process.emitWarning(error.message);
  }
}

/** Setup takes seconds (a JVM starts): an abort then should not wait for the run to begin. */
function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new RunAbortedError('Interrupted; stopping everything that was started.');
}

function withoutUndefined(input: RunLocalOptions): Partial<WorkloadOptions> {
  const keys: Array<keyof WorkloadOptions> = ['orders', 'seed', 'pollers', 'dupRate', 'failRate', 'visibilityTimeoutSeconds'];
  return Object.fromEntries(keys.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
}
