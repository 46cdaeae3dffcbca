import { describe, expect, it } from 'vitest';
import { awsModel, lmiUsdPerMillionDeliveries, lmiUsdPerVcpuHour } from '../../../bench/aws-model.js';
import type { RequestTally } from '../../../bench/counter.js';
import { renderLmiSection } from '../../../bench/lambda/docs.js';
import { installInvokeStore, RuntimeInvokeStore } from '../../../bench/lambda/invoke-store.js';
import { type LmiSliceSample, lmiFigures, lmiResults, lmiSlices } from '../../../bench/lambda/lmi-figures.js';
import { lmiMemoryMb } from '../../../bench/lambda/lmi.js';
import { dueBatches, handBack, MAX_RECEIVES, REDELIVERY_DELAY_MS, type Waiting } from '../../../bench/lambda/redelivery.js';
import { costTable, DEFAULT_REQUESTS_ROW, lmiVersusTable } from '../../../bench/lambda/report.js';
import { checkLambdaTargets } from '../../../bench/lambda/targets.js';
import type { LambdaReport, LmiConfigResult } from '../../../bench/results.js';
import type { Delivery } from '../../../bench/workload.js';
import { fixtureMachine, fixtureVersions } from '../../support/bench-report.js';

const tally = (wru: number, rru = 0): RequestTally => ({ requests: { PutItemCommand: 20 }, units: 0, requestMs: 100, wru, rru });

/** A slice of 100 deliveries: `windowRecords` of them acknowledged in a steady window of `windowMs`, using `windowCpuMs`. */
function slice(
  slice: number,
  windowRecords: number,
  windowMs: number,
  windowCpuMs: number,
  over: Partial<LmiSliceSample> = {},
): LmiSliceSample {
  return {
    slice,
    windowMs,
    windowCpuMs,
    windowRecords,
    totalMs: windowMs * 1.2,
    totalCpuMs: windowCpuMs * 1.2,
    records: 100,
    batchMs: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    invocations: 10,
    redeliveries: 4,
    unacknowledged: 0,
    tally: tally(200, 10),
    requestPatterns: { batched: 10 },
    error: undefined,
    throttledMs: 60,
    ...over,
  };
}

describe('Lambda Managed Instances: figures', () => {
  it('takes records per vCPU-second over the steady window, per vCPU given, the median of the slices', () => {
    // 80 deliveries in 0.4 s = 200/s on 2 vCPUs = 100 per vCPU-s; 90 in 0.3 s = 300/s = 150; 50 in 0.5 s = 100/s = 50.
    const f = lmiFigures([slice(0, 80, 400, 300), slice(1, 90, 300, 300), slice(2, 50, 500, 200)], 2);
    expect(f.sliceRates).toEqual([100, 150, 50]);
    expect(f.recordsPerVcpuSecond).toBe(100);
    // 220 deliveries for 0.8 s of CPU; 0.8 s of CPU over 1.2 s × 2 vCPUs given.
    expect(f.recordsPerCpuSecond).toBeCloseTo(275, 9);
    expect(f.cpuUtilization).toBeCloseTo(0.8 / 2.4, 9);
    expect(f.records).toBe(300);
    expect(f.redeliveriesPerDelivery).toBeCloseTo(12 / 300, 9);
    expect(f.wruPerDelivery).toBe(2);
    expect(f.p99Ms).toBe(100);
    expect(f.throttledMsPerSecond).toBeCloseTo(180 / 1.44, 9);
    // The invocations of every slice by the pattern their batch log lines named.
    expect(f.requestPatterns).toEqual({ batched: 30 });
  });

  it('prices a delivery at the vCPU time it held at the rate sustained, the requests and the units', () => {
    const f = lmiFigures([slice(0, 100, 1000, 500)], 1);
    // 100 per vCPU-s: 300 deliveries hold 3 vCPU-s; 30 invocations; 600 WRU, 30 RRU.
    const expected = lmiUsdPerMillionDeliveries({ deliveries: 300, vcpuSeconds: 3, invocations: 30, writeUnits: 600, readUnits: 30 });
    expect(f.usdPerMillionDeliveries).toBeCloseTo(expected.total, 12);
    expect(f.instanceUsdPerMillionDeliveries).toBeCloseTo(expected.instance, 12);
    // $0.0816 / 2 vCPUs × 1.15 per vCPU-hour; 3 vCPU-s over 300 deliveries, per million.
    expect(lmiUsdPerVcpuHour()).toBeCloseTo(0.04692, 6);
    expect(expected.instance).toBeCloseTo((3 / 3600) * 0.04692 * (1e6 / 300), 3);
    expect(expected.total - expected.instance).toBeCloseTo(((30 * 0.2) / 1e6 + (600 * 0.625 + 30 * 0.125) / 1e6) * (1e6 / 300), 9);
  });

  it('gives ratios to the compared variant and calls a variant that gave up a record not exactly once', () => {
    const effects = { applied: 100, unique: 100, points: 5, expectedPoints: 5 };
    const lane = (id: string, rate: number, over: Partial<LmiSliceSample> = {}) => ({
      id,
      title: id,
      setup: '',
      comparedWith: id === 'powertools' ? undefined : 'powertools',
      idempotent: true,
      samples: [slice(0, rate, 1000, rate * 5, over)],
      effects,
      error: undefined,
    });
    const [pt, ours, broken] = lmiResults(
      [lane('powertools', 50), lane('ours-default', 100), lane('ours-state', 150, { unacknowledged: 2 })],
      1,
    );
    expect(pt?.ratios).toBeNull();
    expect(ours?.ratios?.recordsPerVcpuSecond).toBeCloseTo(2, 9);
    // 5 ms of CPU per delivery on both sides.
    expect(ours?.ratios?.cpuPerRecord).toBeCloseTo(1, 9);
    expect(ours?.notExactlyOnce).toBeUndefined();
    expect(broken?.notExactlyOnce).toBe('2 records reported failed');
  });

  it('keeps at least twice the in-flight batches in a slice, at most `max` slices', () => {
    expect(lmiSlices(250, 8, 5)).toBe(5);
    expect(lmiSlices(250, 32, 5)).toBe(3);
    expect(lmiSlices(250, 64, 5)).toBe(1);
    expect(lmiSlices(10, 64, 5)).toBe(1);
  });

  it("gives the function the model's memory per vCPU", () => {
    expect(awsModel.lmi.memoryGiBPerVcpu).toBe(2);
    expect(lmiMemoryMb(1)).toBe(2048);
    expect(lmiMemoryMb(2)).toBe(4096);
  });
});

function delivery(orderNo: string, messageId: string): Delivery {
  return { messageId, event: { orderNo, customerId: 'c', amount: 10 }, duplicate: false };
}

describe('Lambda Managed Instances: a record handed back comes again', () => {
  const w = (orderNo: string, dueAt: number, receives = 2): Waiting => ({
    delivery: delivery(orderNo, `m-${orderNo}-${dueAt}`),
    receives,
    dueAt,
  });

  it('batches the due deliveries, never one event twice in a batch, and leaves the others waiting', () => {
    const batches = dueBatches([w('a', 0), w('b', 5), w('a', 1), w('c', 50)], 10, 2);
    expect(batches.map((b) => b.map((x) => x.delivery.event.orderNo))).toEqual([['a', 'b'], ['a']]);
  });

  it('sends a failed delivery again after the redelivery delay, and gives it up after the last receive', () => {
    const { again, givenUp } = handBack([w('a', 0, 1), w('b', 0, MAX_RECEIVES)], 1000);
    expect(again).toEqual([{ delivery: w('a', 0, 1).delivery, receives: 2, dueAt: 1000 + REDELIVERY_DELAY_MS }]);
    expect(givenUp).toBe(1);
  });
});

describe("the runtime's invoke store", () => {
  it('keeps each invocation in flight apart, refuses the protected keys and any write outside an invocation', async () => {
    const store = new RuntimeInvokeStore();
    const seen: string[] = [];
    const invocation = (id: string, wait: number) =>
      store.runInvocation(id, async () => {
        store.set('batch', id);
        await new Promise((resolve) => setTimeout(resolve, wait));
        seen.push(`${store.getRequestId()}:${String(store.get('batch'))}`);
      });
    await Promise.all([invocation('a', 20), invocation('b', 1)]);
    expect(seen).toEqual(['b:b', 'a:a']);
    expect(() => store.set('batch', 'x')).toThrow('No context available');
    expect(() => store.runInvocation('c', () => store.set(RuntimeInvokeStore.PROTECTED_KEYS.REQUEST_ID, 'd'))).toThrow(/protected/);
    expect(store.getRequestId()).toBe('-');
  });

  it('is installed where the runtime puts it', () => {
    const g = globalThis as { awslambda?: { InvokeStore?: unknown } };
    const before = g.awslambda;
    try {
      const store = installInvokeStore();
      expect(g.awslambda?.InvokeStore).toBe(store);
    } finally {
      if (before === undefined) delete g.awslambda;
      else g.awslambda = before;
    }
  });
});

/** A configuration: Powertools at `pt` records per vCPU-s, ours at `factor` × that. */
function config(vcpus: number, inFlight: number, pt: number, factor: number): LmiConfigResult {
  const effects = { applied: 100, unique: 100, points: 5, expectedPoints: 5 };
  const lane = (id: string, rate: number, comparedWith: string | undefined) => ({
    id,
    title: id === 'ours-state' ? 'ours, state machine' : id,
    setup: '',
    comparedWith,
    idempotent: true,
    samples: [slice(0, rate * vcpus, 1000, rate * vcpus * 4)],
    effects,
    error: undefined,
  });
  return {
    vcpus,
    inFlight,
    memoryMb: lmiMemoryMb(vcpus),
    quotaUs: vcpus * 100_000,
    periodUs: 100_000,
    threads: vcpus,
    coresAvailable: 1,
    slices: 1,
    durationS: 10,
    variants: lmiResults(
      [
        lane('powertools', pt, undefined),
        lane('ours-default', pt * factor, 'powertools'),
        lane('ours-transaction', pt * factor * 1.5, 'powertools'),
        lane('powertools-order', pt, undefined),
        lane('ours-state', pt * factor * 2, 'powertools-order'),
      ],
      vcpus,
    ),
  };
}

function lmiReport(configs: LmiConfigResult[]): LambdaReport {
  return {
    kind: 'lambda',
    date: '2026-12-06T00:00:00.000Z',
    durationS: 60,
    command: 'npm run bench -- --aws --lmi 1,2',
    machine: fixtureMachine(1, 1),
    versions: fixtureVersions,
    workload: {
      events: 100,
      duplicates: 25,
      deliveries: 125,
      batches: 13,
      batchSize: 10,
      seed: 1,
      duplicateRate: 0.25,
      warmupBatches: 2,
      slices: 5,
      latencyMs: 0,
      unitsCounted: false,
      aws: false,
    },
    schedule: 'LMI',
    cgroupRoot: '/sys/fs/cgroup/cpu',
    quotaChecks: [],
    sizes: [],
    lmi: configs,
    coldStart: undefined,
    targets: checkLambdaTargets([], configs, undefined),
    problems: [],
  };
}

describe('Lambda Managed Instances: tables, targets, the docs', () => {
  const configs = [config(1, 8, 50, 2), config(1, 64, 80, 1.25), config(2, 64, 60, 1.6)];

  it('judges each target on its lowest configuration', () => {
    const byName = new Map(checkLambdaTargets([], configs, undefined).map((c) => [c.target, c]));
    expect(byName.get('Lambda Managed Instances: claim default ≥ 1.5x Powertools records per vCPU-second')).toMatchObject({
      measured: 'lowest 1.25x at 1 vCPU × 64 in flight',
      met: false,
    });
    expect(byName.get('Lambda Managed Instances: state machine ≥ 2.0x Powertools (order update) records per vCPU-second')).toMatchObject({
      measured: 'lowest 2.50x at 1 vCPU × 64 in flight',
      met: true,
    });
  });

  it('shows every configuration against Powertools, and the cost per use case at the most in flight per vCPU count', () => {
    const versus = lmiVersusTable(configs);
    expect(versus.head.slice(1)).toEqual(['1 vCPU × 8 in flight', '1 vCPU × 64 in flight', '2 vCPU × 64 in flight']);
    expect(versus.rows[1]?.[1]).toMatch(/^2\.00x · /);
    // Last, the requests the default's batch log lines named in each configuration.
    expect(versus.rows.at(-1)).toEqual([DEFAULT_REQUESTS_ROW, 'batched', 'batched', 'batched']);
    const cost = costTable({ sizes: [], lmi: configs });
    expect(cost.head).toEqual(['use case: ours vs', 'LMI, 1 vCPU × 64 in flight', 'LMI, 2 vCPU × 64 in flight']);
    expect(cost.rows.map((r) => r[0])).toEqual([
      'claim record (the default): vs Powertools',
      'transaction: vs Powertools + the same plain write',
      'state machine: vs Powertools + an update',
    ]);
    expect(cost.rows[0]?.[1]).toMatch(/^\$\d+\.\d\d vs \$\d+\.\d\d \(0\.\d\dx\)$/);
  });

  it('writes the section with its chart, the exactly-once verdict and a warning where the machine had fewer cores than vCPUs', () => {
    const text = renderLmiSection(lmiReport(configs), 'benchmarks-lmi.svg');
    expect(text.startsWith('<!-- bench:begin lmi -->')).toBe(true);
    expect(text).toContain('](benchmarks-lmi.svg)');
    expect(text).toContain('exactly once in every configuration');
    expect(text).toContain('LMI 2 vCPU × 64 in flight: the environment could run on 1 core only');
    expect(text).not.toContain('LMI 1 vCPU × 8 in flight: the environment could run');
  });
});
