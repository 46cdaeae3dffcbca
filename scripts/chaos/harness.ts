/**
 * Builds the hooks a chaos run plugs into the local run (see
 * scripts/local/run-hooks.ts) from a seed and a fault mix, and keeps what
 * they observed: faults injected, crashes, doubled deliveries, timed-out
 * batches, acknowledged business keys, and per-invocation traces.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import type { TransactionalIdempotencyStore } from '../../src/index.js';
import { abandon, checkpoint, crashingStore, injectDynamoDBFaults, type DynamoDBFaultInjector } from '../../src/testing/index.js';
import type { DynamoDBFaultRule } from '../../src/testing/dynamodb-faults.js';
import type { PipelineCrashPoint } from '../../src/testing/crash-store.js';
import { chanceOf } from '../../src/testing/chance.js';
import type { FaultCounts } from '../../src/testing/dynamodb-faults.js';
import { NOTIFICATIONS_CONSUMER } from '../../functions/notifications.js';
import type { RunHooks, SqsConsumer } from '../local/run-hooks.js';
import type { OrderPaidEvent, RelayCrashPoint } from '../local/service.js';
import type { ChaosRates, ChaosTiming } from './plan.js';
import { tracingStore, Traces, type Consumer } from './trace.js';

const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchExecuteStatement'];

/** What the chaos hooks saw during one run. */
export interface ChaosObservations {
  readonly dynamodb: { readonly injected: FaultCounts; readonly surfaced: FaultCounts };
  readonly crashes: Record<Consumer, Record<PipelineCrashPoint, number>>;
  /** Outbox relay invocations killed at each of its crash points. */
  readonly relayCrashes: Record<RelayCrashPoint, number>;
  /** Batches handed to two invocations at once. */
  readonly deliveredTwice: Record<SqsConsumer, number>;
  /** Batches given a function timeout of a few dozen ms. */
  readonly shortTimeouts: Record<SqsConsumer, number>;
  /** Side effects slowed past the visibility timeout. */
  readonly slowEffects: number;
  /** Business keys acknowledged by each consumer (deleted from the queue / async invocation returned). */
  readonly acknowledged: Record<Consumer, Set<string>>;
  readonly traces: Traces;
}

export interface Chaos {
  readonly hooks: RunHooks;
  observations(): ChaosObservations;
}

function dynamodbRules(rates: ChaosRates, timing: ChaosTiming): DynamoDBFaultRule[] {
  return [
    { fault: 'latency', probability: rates.latency, latencyMs: timing.latencyMs },
    { fault: 'throttle', probability: rates.throttle },
    { fault: 'transaction-conflict', probability: rates.transactionConflict, commands: ['TransactWriteItems'] },
    { fault: 'network-before', probability: rates.networkBefore, commands: WRITES },
    { fault: 'network-after', probability: rates.networkAfter, commands: WRITES },
  ];
}

const noCrashes = (): Record<PipelineCrashPoint, number> => ({ 'after-claim': 0, 'before-complete': 0, 'after-complete': 0 });

function bodyKey(body: string, field: string): string | undefined {
  try {
    const value = (JSON.parse(body) as Record<string, unknown> | null)?.[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A label for a batch that is the same whatever the scheduling: its first body and its receive count. */
function batchLabel(event: SQSEvent): string {
  const head = event.Records[0];
  return `${head?.body ?? ''}|${head?.attributes.ApproximateReceiveCount ?? ''}`;
}

/**
 * The hooks for one seeded chaos run.
 *
 * @example
 * ```ts
 * const chaos = createChaos(7, defaultRates, defaultTiming);
 * const report = await runLocal({ orders: 200, seed: 7, hooks: chaos.hooks });
 * console.log(chaos.observations().crashes);
 * ```
 */
export function createChaos(seed: number, rates: ChaosRates, timing: ChaosTiming): Chaos {
  const traces = new Traces();
  let injector: DynamoDBFaultInjector | undefined;
  const crashes: ChaosObservations['crashes'] = { payments: noCrashes(), notifications: noCrashes(), points: noCrashes() };
  const deliveredTwice = { payments: 0, notifications: 0 };
  const shortTimeouts = { payments: 0, notifications: 0 };
  const acknowledged: ChaosObservations['acknowledged'] = { payments: new Set(), notifications: new Set(), points: new Set() };
  const slowSeen = new Set<string>();
  const relayCrashes: Record<RelayCrashPoint, number> = { 'after-put-events': 0, 'before-mark': 0 };
  const relayCrashed = new Set<string>();

  /** Kills the relay's invocation at `point` for a chosen outbox item, once per item and point. */
  async function relayPoint(point: RelayCrashPoint, outboxId: string): Promise<void> {
    const label = `relay|${point}|${outboxId}`;
    const rate = point === 'after-put-events' ? rates.crashRelayAfterPutEvents : rates.crashRelayBeforeMark;
    if (relayCrashed.has(label) || chanceOf(seed, label) >= rate) return;
    relayCrashed.add(label);
    relayCrashes[point] += 1;
    await abandon(`outbox relay killed (${point})`);
  }
  let slowEffects = 0;
  let recordIdOf: (key: string) => string = (key) => `${NOTIFICATIONS_CONSUMER}#${key}`;

  function wrapStore(consumer: Consumer, store: TransactionalIdempotencyStore): TransactionalIdempotencyStore {
    if (consumer === 'notifications') recordIdOf = (key) => store.recordId(NOTIFICATIONS_CONSUMER, key);
    return crashingStore(tracingStore(store, traces), {
      seed: (seed + consumer.length * 7919) >>> 0,
      probability: {
        'after-claim': rates.crashAfterClaim,
        'before-complete': rates.crashBeforeComplete,
        'after-complete': rates.crashAfterComplete,
      },
      onCrash: (crash) => {
        crashes[consumer][crash.point] += 1;
        const trace = traces.current();
        if (trace !== undefined) trace.crashPoint = crash.point;
      },
    });
  }

  async function beforeEffect(kind: 'publish' | 'send', key: string): Promise<void> {
    // A killed invocation performs no more effects.
    await checkpoint();
    const label = `${kind}|${key}`;
    if (slowSeen.has(label) || chanceOf(seed, `slow|${label}`) >= rates.slowEffect) return;
    slowSeen.add(label);
    slowEffects += 1;
    await new Promise((resolve) => setTimeout(resolve, timing.slowEffectMs));
    await checkpoint();
  }

  function mapping(consumer: SqsConsumer) {
    const keyField = consumer === 'payments' ? 'orderNo' : 'notificationId';
    return {
      deliverTwice: (event: SQSEvent) => {
        const twice = chanceOf(seed, `twice|${consumer}|${batchLabel(event)}`) < rates.deliverTwice;
        if (twice) deliveredTwice[consumer] += 1;
        return twice;
      },
      timeoutFor: (event: SQSEvent) => {
        const label = `timeout|${consumer}|${batchLabel(event)}`;
        if (chanceOf(seed, label) >= rates.timeoutBatch) return timing.functionTimeoutMs;
        shortTimeouts[consumer] += 1;
        const [min, max] = timing.timeoutBatchMs;
        return Math.round(min + chanceOf(seed, `${label}|ms`) * (max - min));
      },
      onAcknowledged: (event: SQSEvent, ids: readonly string[]) => {
        const deleted = new Set(ids);
        for (const r of event.Records) {
          const key = deleted.has(r.messageId) ? bodyKey(r.body, keyField) : undefined;
          if (key !== undefined) acknowledged[consumer].add(key);
        }
      },
    };
  }

  const hooks: RunHooks = {
    instrument(doc: DynamoDBDocumentClient) {
      injector = injectDynamoDBFaults(doc, { seed, rules: dynamodbRules(rates, timing) });
    },
    functionTimeoutMs: timing.functionTimeoutMs,
    service: {
      store: wrapStore,
      beforeEffect,
      afterEffect(kind, key) {
        if (kind === 'send') traces.current()?.effects.push(recordIdOf(key));
      },
      invocation: (consumer, run) => traces.run(consumer, run),
      lease: timing.lease,
      relayPoint,
    },
    mapping,
    onPointsSucceeded(event: OrderPaidEvent) {
      acknowledged.points.add(event.detail.orderNo);
    },
  };
  const zero = { throttle: 0, 'transaction-conflict': 0, 'network-before': 0, 'network-after': 0, latency: 0 };
  return {
    hooks,
    observations: () => ({
      dynamodb: { injected: injector?.injected() ?? zero, surfaced: injector?.surfaced() ?? zero },
      crashes,
      relayCrashes,
      deliveredTwice,
      shortTimeouts,
      slowEffects,
      acknowledged,
      traces,
    }),
  };
}
